package app

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"rehome/backend/audit"
	"rehome/backend/core"
	"rehome/backend/hardware"
	"rehome/backend/llm"
	"rehome/backend/models"
	"rehome/sandbox"
)

// runEvents records what the App emits.
// needPodman skips a test that needs Podman where there is none, or
// fails it under REHOME_REQUIRE_PODMAN=1.
func needPodman(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("podman"); err != nil {
		if os.Getenv("REHOME_REQUIRE_PODMAN") == "1" {
			t.Fatal("podman is missing")
		}
		t.Skip("podman is missing; set REHOME_REQUIRE_PODMAN=1 to make this a failure")
	}
}

// openApp opens an App over a new data folder; the test closes it.
func openApp(t *testing.T) *Host {
	t.Helper()
	a := New(Config{DataDir: t.TempDir()})
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	return a
}

type runEvents struct {
	mu  sync.Mutex
	out strings.Builder
}

func (e *runEvents) Emit(event string, payload any) {
	if p, ok := payload.(sandbox.Progress); ok && event == "run:progress" {
		e.mu.Lock()
		e.out.WriteString(p.Text)
		e.mu.Unlock()
	}
}

func (e *runEvents) text() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.out.String()
}

// TestCloseCancelsRuns: closing the window (Host.Close, which the
// window's shutdown and the end of `rehome serve` call) cancels the App's
// context, and with it a run in progress: it ends at once as stopped, its
// sandbox removed, instead of running on to its time limit.
func TestCloseCancelsRuns(t *testing.T) {
	needPodman(t)
	a := openApp(t)
	ev := &runEvents{}
	a.SetEmitter(ev)
	type reply struct {
		res sandbox.Result
		err error
	}
	done := make(chan reply, 1)
	go func() {
		res, err := a.RunCode(sandbox.RunRequest{Code: "import time\nprint('started', flush=True)\ntime.sleep(600)\n", Limits: sandbox.Limits{Timeout: 10 * time.Minute}})
		done <- reply{res, err}
	}()
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(ev.text(), "started") {
		if time.Now().After(deadline) {
			t.Fatal("the run never started")
		}
		select {
		case r := <-done:
			t.Fatalf("the run ended before it started: %+v %v", r.res, r.err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	start := time.Now()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil || !strings.Contains(strings.ToLower(r.res.Summary), "stopped") {
			t.Fatalf("after Close: %+v %v", r.res, r.err)
		}
		t.Logf("the run ended %v after Close: %s", time.Since(start).Round(time.Millisecond), r.res.Summary)
	case <-time.After(30 * time.Second):
		t.Fatal("the run went on after Close")
	}
}

// TestErrorsInTheUIsWords: a fact the backend misses reaches the UI with
// the UI's own way to give it, never a flag of the CLI.
func TestErrorsInTheUIsWords(t *testing.T) {
	a := New(Config{DataDir: t.TempDir()})
	// A machine whose RAM cannot be read (detection under an empty root).
	a.core = core.New(a.cfg.DataDir, core.Options{Hardware: hardware.Options{Root: t.TempDir()}})
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	_, err := a.Fit(models.Request{Model: "llama-3.1-8b-instruct", VRAM: "24GiB"})
	if err == nil || !strings.Contains(err.Error(), "RAM is unknown") || !strings.Contains(err.Error(), "tick “Plan a purchase” and enter the RAM in GiB") || strings.Contains(err.Error(), "--") {
		t.Fatalf("fit without RAM: %v", err)
	}
	_, err = a.RunAudit(audit.Request{Features: []string{"knowledge"}})
	if err == nil || !strings.Contains(err.Error(), "VRAM is unknown") || !strings.Contains(err.Error(), "enter it in the VRAM field") || strings.Contains(err.Error(), "--") {
		t.Fatalf("audit without VRAM: %v", err)
	}
	if err := uiError(&llm.NoServerError{Suggested: "qwen2.5:7b"}); !strings.Contains(err.Error(), "ollama pull qwen2.5:7b") || !strings.Contains(err.Error(), "the Ask screen's server field") || strings.Contains(err.Error(), "--server") {
		t.Fatalf("no model server: %v", err)
	}
}
