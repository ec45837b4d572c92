package app

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"rehome/internal/testsupport/llmtest"
	"rehome/sandbox"
)

// TestSavedLimitsBindAskAndSession: the time limit saved in Settings (3 s)
// holds a question's cell and a Code Interpreter session's cell of the
// window alike: a cell that sleeps for minutes is stopped at 3 s, not at
// the sandbox's default of 30 s nor when it ends.
func TestSavedLimitsBindAskAndSession(t *testing.T) {
	needPodman(t)
	a := openApp(t)
	defer a.Close()
	if _, err := a.SetRunLimits(sandbox.Limits{Timeout: 3 * time.Second}); err != nil {
		t.Fatal(err)
	}

	// Ask: the recorded model runs `time.sleep(600)`.
	server := llmtest.Replay(t, testdata, "slow-cell").Base()
	t0 := time.Now()
	conv, err := a.Ask(AskRequest{Server: server, Question: "Wait a while."})
	took := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	cells := conv.Exchanges[len(conv.Exchanges)-1].Cells()
	if len(cells) != 1 {
		t.Fatalf("want one cell, got %d", len(cells))
	}
	r := cells[0].Result
	t.Logf("ask: the sleeping cell ended after %d ms (interrupted %v, timed out %v); the question took %s", r.DurationMS, r.Interrupted, r.TimedOut, took.Round(time.Millisecond))
	if !(r.Interrupted || r.TimedOut) || r.DurationMS < 2500 || r.DurationMS > 10000 {
		t.Fatalf("ask's cell was not stopped at the saved 3 s: %+v", r)
	}

	// Session: a cell of the file's own Python sleeps 25 s.
	// As uploaded through the browser: a session opens only a file the
	// user gave rehome.
	dir := filepath.Join(a.cfg.DataDir, UploadsDir, "limits-test")
	os.MkdirAll(dir, 0o755)
	csv := filepath.Join(dir, "s.csv")
	os.WriteFile(csv, []byte("a,b\n1,2\n"), 0o644)
	info, err := a.StartSession(csv)
	if err != nil {
		t.Fatal(err)
	}
	if info.Limits.Timeout != 3*time.Second {
		t.Errorf("session started with timeout %s, want the saved 3s", info.Limits.Timeout)
	}
	t0 = time.Now()
	res, err := a.ExecCell(info.ID, "import time\ntime.sleep(25)\n", 0)
	took = time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("session: the sleeping cell ended after %s, status %s", took.Round(time.Millisecond), res.Status)
	if res.Status == "ok" || took > 12*time.Second {
		t.Fatalf("session's cell was not stopped at the saved 3 s: %s after %s", res.Status, took)
	}
}
