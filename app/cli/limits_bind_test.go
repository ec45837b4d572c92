package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSavedLimitsBindAskAndSession: the time limit saved with `rehome
// settings set timeout=3s` — what Settings → Sandbox saves — holds `rehome
// ask`'s cells and `rehome session exec`'s cells, as it holds `rehome
// run`: a cell that sleeps is stopped at 3 s (it ran 26 s and 25 s when
// the terminal built its own limits). A flag given still wins.
func TestSavedLimitsBindAskAndSession(t *testing.T) {
	needPodmanCLI(t)
	home := t.TempDir()
	if r := rehomeCLI(t, home, "settings", "set", "timeout=3s"); r.code != 0 || !strings.Contains(r.stdout, "3s") {
		t.Fatalf("settings set: %+v", r)
	}

	// ask: the recorded model runs `time.sleep(600)`.
	srv := recordedOllama(t, "slow-cell")
	t0 := time.Now()
	r := rehomeCLI(t, home, "ask", "--server", srv.URL, "--json", "Wait a while.")
	took := time.Since(t0)
	var tr struct {
		Cells []struct {
			Result struct {
				DurationMS  int64 `json:"duration_ms"`
				TimedOut    bool  `json:"timed_out"`
				Interrupted bool  `json:"interrupted"`
			} `json:"result"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &tr); err != nil || len(tr.Cells) != 1 {
		t.Fatalf("ask: %v %+v", err, r)
	}
	c := tr.Cells[0].Result
	t.Logf("ask: the sleeping cell ended after %d ms (timed out %v); the command took %s", c.DurationMS, c.TimedOut, took.Round(time.Millisecond))
	if !(c.TimedOut || c.Interrupted) || c.DurationMS < 2500 || c.DurationMS > 10000 {
		t.Fatalf("ask's cell was not stopped at the saved 3 s: %+v", c)
	}

	// session: started with the saved limits; its cells get them.
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	csv := filepath.Join(dir, "s.csv")
	os.WriteFile(csv, []byte("a,b\n1,2\n"), 0o644)
	start := func(args ...string) (string, time.Duration) {
		t.Helper()
		r := rehomeCLI(t, home, append([]string{"session", "start", "--file", csv, "--json"}, args...)...)
		var info struct {
			ID     string `json:"id"`
			Limits struct {
				Timeout time.Duration `json:"timeout_ns"`
			} `json:"limits"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &info) != nil {
			t.Fatalf("session start: %+v", r)
		}
		t.Cleanup(func() { rehomeCLI(t, home, "session", "stop", info.ID) })
		return info.ID, info.Limits.Timeout
	}
	id, timeout := start()
	if timeout != 3*time.Second {
		t.Errorf("session started with timeout %s, want the saved 3s", timeout)
	}
	t0 = time.Now()
	r = rehomeCLIIn(t, home, strings.NewReader("import time\ntime.sleep(25)\n"), "session", "exec", id, "-")
	took = time.Since(t0)
	t.Logf("session exec: the sleeping cell ended after %s (exit %d)", took.Round(time.Millisecond), r.code)
	if r.code == 0 || took > 12*time.Second {
		t.Fatalf("session's cell was not stopped at the saved 3 s: %s, %+v", took, r)
	}
	if _, timeout := start("--timeout", "7s"); timeout != 7*time.Second {
		t.Errorf("--timeout 7s started a session with %s", timeout)
	}
}
