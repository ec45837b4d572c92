package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rehome/app"
	"rehome/backend/store"
	"rehome/sandbox"
)

func needPodmanCLI(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("podman"); err != nil {
		if os.Getenv("REHOME_REQUIRE_PODMAN") == "1" {
			t.Fatal("podman is missing")
		}
		t.Skip("skipped: no podman here (set REHOME_REQUIRE_PODMAN=1 to make this a failure)")
	}
}

// TestParallelRuns: eight `rehome run` at once on one data folder all
// run and are all stored (the database is held only while a record is
// written); while `rehome serve` holds the database, a run says so.
func TestParallelRuns(t *testing.T) {
	needPodmanCLI(t)
	home := t.TempDir()
	dir := t.TempDir()
	csv := filepath.Join(dir, "d.csv")
	os.WriteFile(csv, []byte("a,b\n1,2\n3,4\n"), 0o600)
	script := filepath.Join(dir, "s.py")
	os.WriteFile(script, []byte("print(sum(1 for _ in open('/mnt/data/d.csv')))\n"), 0o600)

	const n = 8
	results := make([]cliResult, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = rehomeCLI(t, home, "run", "--file", csv, "--json", script)
		}()
	}
	wg.Wait()
	took := time.Since(start)
	ids := map[string]bool{}
	for i, r := range results {
		var res struct {
			ID       string `json:"id"`
			ExitCode int    `json:"exit_code"`
			Stdout   string `json:"stdout"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != "3" {
			t.Errorf("run %d of %d: %+v", i+1, n, r)
			continue
		}
		if strings.Contains(r.stderr, "not kept") {
			t.Errorf("run %d not stored: %s", i+1, r.stderr)
		}
		ids[res.ID] = true
	}
	st, err := store.Open(filepath.Join(home, store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := store.List[sandbox.Record](st, store.Runs, 100)
	st.Close()
	if err != nil || len(recs) != n || len(ids) != n {
		t.Fatalf("%d records stored, %d distinct ids, want %d: %v", len(recs), len(ids), n, err)
	}
	t.Logf("%d parallel runs on one data folder: all succeeded and stored in %v", n, took.Round(time.Millisecond))

	// A window or `rehome serve` holds the database: the run goes through
	// it (door.go), as it would alone, and is kept there.
	b := startBeside(t)
	t0 := time.Now()
	r := rehomeCLI(t, b.home, "run", "--file", csv, "--json", script)
	var res struct {
		ExitCode int `json:"exit_code"`
		Stdout   string
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || strings.TrimSpace(res.Stdout) != "3" {
		t.Fatalf("run while serve holds the database: %+v", r)
	}
	if got := b.call(t, "ListRuns", 10); !strings.Contains(got, "exit_code") {
		t.Fatalf("the window does not list the terminal's run: %s", got)
	}
	t.Logf("a run through serve took %v", time.Since(t0).Round(time.Millisecond))
}

// TestRunLimitsBounds: `rehome run` holds its flags to the same safe range
// as Settings, in the same words, before anything starts.
func TestRunLimitsBounds(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	script := filepath.Join(dir, "s.py")
	os.WriteFile(script, []byte("print(1)\n"), 0o600)
	a := app.New(app.Config{DataDir: t.TempDir()})
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, c := range []struct {
		flag, value string
		set         func(*sandbox.Limits)
	}{
		{"--cpus", "0.001", func(l *sandbox.Limits) { l.CPUs = 0.001 }},
		{"--cpus", "1024", func(l *sandbox.Limits) { l.CPUs = 1024 }},
		{"--memory", "100TiB", func(l *sandbox.Limits) { l.Memory = 100 << 40 }},
		{"--timeout", "5h", func(l *sandbox.Limits) { l.Timeout = 5 * time.Hour }},
		{"--pids", "2", func(l *sandbox.Limits) { l.Pids = 2 }},
	} {
		r := rehomeCLI(t, home, "run", c.flag, c.value, script)
		wantUsageError(t, r, "outside the safe range")
		l := sandbox.DefaultLimits
		c.set(&l)
		_, err := a.SetRunLimits(l)
		if err == nil || strings.TrimSpace(r.stderr) != "rehome: "+err.Error() {
			t.Errorf("%s %s: the CLI says %q, Settings %v", c.flag, c.value, r.stderr, err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "runs")); !os.IsNotExist(err) {
		t.Errorf("a refused run made its folder: %v", err)
	}
}

// TestRunHonoursSettings: `rehome run` runs under the limits the user
// saved in Settings (through the window's own method), a flag given
// overrides its field alone, and the record says what was applied.
func TestRunHonoursSettings(t *testing.T) {
	needPodmanCLI(t)
	home := t.TempDir()
	script := filepath.Join(t.TempDir(), "s.py")
	os.WriteFile(script, []byte("print(1)\n"), 0o600)

	a := app.New(app.Config{DataDir: home})
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	saved := sandbox.Limits{Timeout: 17 * time.Second, Memory: 300 << 20, Pids: 77}
	if _, err := a.SetRunLimits(saved); err != nil {
		t.Fatal(err)
	}
	a.Close() // the window is closed: the run may hold the database

	type applied struct {
		ID     string `json:"id"`
		Limits struct {
			Timeout, Memory, Pids struct {
				Value float64 `json:"value"`
			}
		} `json:"limits"`
	}
	check := func(r cliResult, timeoutMS, memory, pids float64) string {
		t.Helper()
		var res applied
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil {
			t.Fatalf("rehome run: %+v", r)
		}
		if l := res.Limits; l.Timeout.Value != timeoutMS || l.Memory.Value != memory || l.Pids.Value != pids {
			t.Fatalf("applied timeout %v ms, memory %v, pids %v; want %v, %v, %v", l.Timeout.Value, l.Memory.Value, l.Pids.Value, timeoutMS, memory, pids)
		}
		return res.ID
	}
	id := check(rehomeCLI(t, home, "run", "--json", script), 17000, 300<<20, 77)
	check(rehomeCLI(t, home, "run", "--json", "--memory", "400MiB", script), 17000, 400<<20, 77)

	// The record, read through the window's method, says the same.
	a = app.New(app.Config{DataDir: home})
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rec, err := a.GetRun(id)
	if err != nil || rec.Source != "cli" || rec.Result.Limits.Timeout.Value != 17000 || rec.Result.Limits.Memory.Value != 300<<20 {
		t.Fatalf("record of %s: %+v, %v", id, rec, err)
	}
	if want := filepath.Join(home, "runs", id); rec.Result.OutputDir != want {
		t.Fatalf("outputs went to %s, want the run's folder %s, as the window's", rec.Result.OutputDir, want)
	}
}
