package cli

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rehome/backend/store"
	"rehome/sandbox"
)

// liveCLI is a rehome process that a test watches and interrupts.
type liveCLI struct {
	cmd      *exec.Cmd
	mu       sync.Mutex
	out, err bytes.Buffer
	done     chan struct{}
	code     int
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func startCLI(t *testing.T, home string, args ...string) *liveCLI {
	t.Helper()
	l := &liveCLI{cmd: exec.Command(rehomeBin, args...), done: make(chan struct{})}
	l.cmd.Env = append(cleanEnv(), "REHOME_HOME="+home)
	l.cmd.Stdout, l.cmd.Stderr = lockedWriter{&l.mu, &l.out}, lockedWriter{&l.mu, &l.err}
	if err := l.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		l.cmd.Wait()
		l.code = l.cmd.ProcessState.ExitCode()
		close(l.done)
	}()
	t.Cleanup(func() { l.cmd.Process.Kill(); <-l.done })
	return l
}

func (l *liveCLI) output() (string, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.out.String(), l.err.String()
}

// waitFor waits until ok says the process has reached the point to
// interrupt it at.
func (l *liveCLI) waitFor(t *testing.T, what string, limit time.Duration, ok func(stdout, stderr string) bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-l.done:
			o, e := l.output()
			t.Fatalf("ended (code %d) before %s: stdout %q stderr %q", l.code, what, o, e)
		default:
		}
		if o, e := l.output(); ok(o, e) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	o, e := l.output()
	t.Fatalf("no %s within %v: stdout %q stderr %q", what, limit, o, e)
}

// interrupt sends SIGINT (Ctrl-C) and checks that the process ends within
// a second with code and a one-line message containing msg.
func (l *liveCLI) interrupt(t *testing.T, code int, msg string) time.Duration {
	t.Helper()
	start := time.Now()
	l.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-l.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10s after Ctrl-C")
	}
	took := time.Since(start)
	o, e := l.output()
	if l.code != code || !strings.Contains(e, msg) {
		t.Fatalf("after Ctrl-C: code %d (want %d), stderr %q (want %q); stdout %q", l.code, code, e, msg, o)
	}
	if took > time.Second {
		t.Errorf("took %v to end after Ctrl-C, want a second at most", took)
	}
	return took
}

// TestInterruptLongCommands: Ctrl-C (SIGINT) ends every long command
// within a second, with a clean message and exit code — a run of a
// sleeping cell, a session's sleeping cell (the session and its state
// stay), the sandbox doctor, an image save, an answer from a server that
// never answers, and serve — and leaves nothing behind.
func TestInterruptLongCommands(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()

	t.Run("serve", func(t *testing.T) {
		l := startCLI(t, home, "serve", "--addr", "127.0.0.1:0")
		l.waitFor(t, "its URL", 20*time.Second, func(o, _ string) bool { return strings.Contains(o, "?token=") })
		took := l.interrupt(t, exitOK, "rehome serve: stopped")
		t.Logf("serve ended %v after Ctrl-C", took.Round(time.Millisecond))
	})

	t.Run("ask", func(t *testing.T) {
		asked, stop := make(chan struct{}, 1), make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/v1/models":
				io.WriteString(w, `{"object":"list","data":[{"id":"hang","object":"model"}]}`)
			case "/v1/chat/completions":
				select {
				case asked <- struct{}{}:
				default:
				}
				select { // never answers
				case <-r.Context().Done():
				case <-stop:
				}
			default:
				http.NotFound(w, r)
			}
		}))
		defer srv.Close()
		defer close(stop)
		l := startCLI(t, home, "ask", "--server", srv.URL+"/v1", "--model", "hang", "What is 1+1?")
		select {
		case <-asked:
		case <-time.After(60 * time.Second):
			o, e := l.output()
			t.Fatalf("the question never reached the server: %q %q", o, e)
		}
		// ask says so in its own words and keeps the conversation.
		took := l.interrupt(t, exitInterrupted, "rehome: Stopped by the user.")
		t.Logf("ask ended %v after Ctrl-C", took.Round(time.Millisecond))
	})

	needPodmanCLI(t)
	t.Run("run", func(t *testing.T) {
		script := filepath.Join(dir, "sleep.py")
		os.WriteFile(script, []byte("import time\nprint('started', flush=True)\ntime.sleep(600)\n"), 0o600)
		l := startCLI(t, home, "run", "--timeout", "10m", script)
		l.waitFor(t, "the cell running", 120*time.Second, func(o, _ string) bool { return strings.Contains(o, "started") })
		took := l.interrupt(t, exitInterrupted, "rehome: interrupted")
		t.Logf("run ended %v after Ctrl-C", took.Round(time.Millisecond))
		// The run is kept as stopped, and its sandbox is gone.
		st, err := store.Open(filepath.Join(home, store.FileName), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		recs, err := store.List[sandbox.Record](st, store.Runs, 1)
		st.Close()
		if err != nil || len(recs) != 1 || !strings.Contains(strings.ToLower(recs[0].Result.Summary), "stopped") {
			t.Fatalf("the interrupted run's record: %+v %v", recs, err)
		}
		if exec.Command("podman", "container", "exists", "rehome-run-"+recs[0].ID).Run() == nil {
			t.Errorf("the run's container rehome-run-%s is left behind", recs[0].ID)
		}
	})

	t.Run("session exec", func(t *testing.T) {
		r := rehomeCLI(t, home, "session", "start")
		if r.code != 0 {
			t.Fatalf("session start: %+v", r)
		}
		id := strings.TrimSpace(r.stdout)
		defer rehomeCLI(t, home, "session", "stop", id)
		script := filepath.Join(dir, "sleep-cell.py")
		os.WriteFile(script, []byte("import time\nx = 41\nprint('started', flush=True)\ntime.sleep(600)\n"), 0o600)
		l := startCLI(t, home, "session", "exec", id, "--timeout", "10m", script)
		l.waitFor(t, "the cell running", 120*time.Second, func(o, _ string) bool { return strings.Contains(o, "started") })
		took := l.interrupt(t, exitInterrupted, "was interrupted (KeyboardInterrupt); the session's state is kept")
		t.Logf("session exec ended %v after Ctrl-C", took.Round(time.Millisecond))
		// The cell was interrupted, not the session: its state is there.
		next := filepath.Join(dir, "next-cell.py")
		os.WriteFile(next, []byte("print(x + 1)\n"), 0o600)
		if r := rehomeCLI(t, home, "session", "exec", id, next); r.code != 0 || strings.TrimSpace(r.stdout) != "42" {
			t.Fatalf("the next cell after Ctrl-C: %+v", r)
		}
	})

	t.Run("sandbox doctor", func(t *testing.T) {
		l := startCLI(t, home, "sandbox", "doctor")
		l.waitFor(t, "the timeout check", 120*time.Second, func(_, e string) bool { return strings.Contains(e, "checking timeout") })
		took := l.interrupt(t, exitInterrupted, "rehome: interrupted")
		t.Logf("sandbox doctor ended %v after Ctrl-C", took.Round(time.Millisecond))
	})

	t.Run("image save", func(t *testing.T) {
		out := t.TempDir()
		l := startCLI(t, home, "sandbox", "image", "save", filepath.Join(out, "image.tar.gz"))
		l.waitFor(t, "the archive being written", 120*time.Second, func(string, string) bool {
			m, _ := filepath.Glob(filepath.Join(out, ".image.tar.gz.part-*"))
			return len(m) > 0
		})
		time.Sleep(300 * time.Millisecond) // well into the export
		took := l.interrupt(t, exitInterrupted, "rehome: interrupted")
		t.Logf("image save ended %v after Ctrl-C", took.Round(time.Millisecond))
		if left, _ := os.ReadDir(out); len(left) != 0 {
			t.Errorf("left in the output folder: %v", left)
		}
	})
}
