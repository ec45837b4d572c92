package sandboxexec

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rehome/backend/llm"
	"rehome/internal/testsupport/llmtest"
	"rehome/sandbox"
)

// sessionExec is a session executor over files, its sessions under a
// fresh folder; the test fails if a session is still running at its end.
func sessionExec(t *testing.T, e *sandbox.Engine, files ...string) (*Session, string) {
	t.Helper()
	base := filepath.Join(t.TempDir(), "sessions")
	x := &Session{Engine: e, InlinePlots: true,
		// MaxSessions: other packages' tests run sessions at the same time
		// (the cap counts every session on this machine).
		Request: sandbox.SessionRequest{InputPaths: files, Limits: sandbox.Limits{Timeout: 2 * time.Minute}, MaxSessions: 32},
		DirFor:  func(id string) string { return filepath.Join(base, id) }}
	t.Cleanup(func() {
		if err := x.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
		list, err := e.ListSessions(context.Background(), base)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range list {
			if s.Running {
				t.Errorf("session %s still runs after Close", s.ID)
			}
		}
	})
	return x, base
}

// Two files, two cells in one question: the second uses the variables
// the first defined (no reload), and both files are at /mnt/data — one of
// them readable only by its owner (a private copy is shown).
func TestSessionStateAcrossCells(t *testing.T) {
	e := engine(t)
	dir := t.TempDir()
	sales := filepath.Join(dir, "sales.csv")
	targets := filepath.Join(dir, "targets.csv")
	for src, dst := range map[string]string{"../testdata/sales.csv": sales, "../testdata/targets.csv": targets} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(targets, 0o600)
	var infos []llm.FileInfo
	for _, f := range []string{sales, targets} {
		fi, err := llm.DescribeFile(f)
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, fi)
	}
	rec := llmtest.Replay(t, "../testdata", "session-state")
	x, sessions := sessionExec(t, e, sales, targets)
	l := &llm.Loop{Client: &llm.Client{BaseURL: rec.Base()}, Model: "m", Files: infos, Exec: x}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tr := l.Ask(ctx, "Which region beat its target by the most?")
	if tr.Stopped != llm.StopAnswered || tr.Answer != "East beat its target by the most: 21.0." {
		t.Fatalf("stopped %q %q %q; answer %q", tr.Stopped, tr.Note, tr.Error, tr.Answer)
	}
	cells := tr.Cells()
	if len(cells) != 2 {
		t.Fatalf("%d cells", len(cells))
	}
	c1, c2 := cells[0].Result, cells[1].Result
	if c1.ExitCode != 0 || !strings.Contains(c1.Stdout, "6 sales rows, 3 targets") {
		t.Fatalf("cell 1: exit %d stdout %q stderr %q (%s)", c1.ExitCode, c1.Stdout, c1.Stderr, cells[0].Error)
	}
	if c2.ExitCode != 0 || !strings.Contains(c2.Stdout, "East     21.0") || !strings.Contains(c2.Stdout, "South   -20.0") {
		t.Fatalf("cell 2 (state from cell 1): exit %d stdout %q stderr %q", c2.ExitCode, c2.Stdout, c2.Stderr)
	}
	if c1.SessionID == "" || c1.SessionID != c2.SessionID || c1.Cell != 1 || c2.Cell != 2 || c1.StateLost != "" || c2.StateLost != "" {
		t.Fatalf("cells: session %q/%q, numbers %d/%d, state lost %q/%q", c1.SessionID, c2.SessionID, c1.Cell, c2.Cell, c1.StateLost, c2.StateLost)
	}
	if len(c1.Files) != 0 {
		t.Errorf("the inputs came back as outputs: %+v", c1.Files)
	}
	if len(c2.Files) != 1 || c2.Files[0].Kind != "plot" || !strings.HasPrefix(c2.Files[0].DataURL, "data:image/png;base64,") {
		t.Fatalf("cell 2 files: %+v", c2.Files)
	}
	if png, err := os.ReadFile(c2.Files[0].Path); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("plot on disk: %v", err)
	}
	if !strings.HasPrefix(c2.Files[0].Path, sessions) {
		t.Errorf("plot saved outside the session's folder: %s", c2.Files[0].Path)
	}
	// The tool says state persists; the model was given both files.
	first := rec.Bodies()[0]
	if !strings.Contains(first, "State persists between calls") || !strings.Contains(first, "/mnt/data/targets.csv") {
		t.Errorf("first request: %.600s", first)
	}
	if info := x.Info(); info.Input == nil || len(info.Inputs) != 1 || info.Inputs[0].Path != "/mnt/data/targets.csv" {
		t.Errorf("session inputs: %+v %+v", info.Input, info.Inputs)
	}
}

// Stop while a cell runs: the cell is interrupted (KeyboardInterrupt),
// the loop ends as canceled within seconds, the session keeps its state
// (the variable set before the sleep is there), and Close removes it.
func TestSessionStopInterruptsCell(t *testing.T) {
	e := engine(t)
	base := llmtest.Replay(t, "../testdata", "slow-cell").Base()
	x, _ := sessionExec(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	var stopped time.Time
	x.Progress = func(p sandbox.Progress) {
		if p.Stage == "output" && strings.Contains(p.Text, "started") {
			once.Do(func() { stopped = time.Now(); cancel() })
		}
	}
	l := &llm.Loop{Client: &llm.Client{BaseURL: base}, Model: "m", Exec: x}
	done := make(chan *llm.Transcript, 1)
	go func() { done <- l.Ask(ctx, "Wait a while.") }()
	var tr *llm.Transcript
	select {
	case tr = <-done:
	case <-time.After(4 * time.Minute):
		t.Fatal("the loop did not end after Stop")
	}
	if stopped.IsZero() {
		t.Fatalf("the cell never started: %+v", tr.Cells())
	}
	took := time.Since(stopped)
	cells := tr.Cells()
	if tr.Stopped != llm.StopCanceled || len(cells) != 1 {
		t.Fatalf("stopped %q, %d cells", tr.Stopped, len(cells))
	}
	r := cells[0].Result
	if !r.Interrupted || !strings.Contains(r.Stderr, "KeyboardInterrupt") {
		t.Fatalf("cell: interrupted %v exit %d stderr %q summary %q", r.Interrupted, r.ExitCode, r.Stderr, r.Summary)
	}
	if took > 15*time.Second {
		t.Errorf("the loop took %s to end after Stop", took)
	}
	t.Logf("loop ended %s after Stop", took.Round(time.Millisecond))
	res, err := x.Exec(context.Background(), "print(x + 1)")
	if err != nil || strings.TrimSpace(res.Stdout) != "42" || res.Cell != 2 {
		t.Fatalf("after the interrupt: %v %+v", err, res)
	}
}
