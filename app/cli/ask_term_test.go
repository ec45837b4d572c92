package cli

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// onPTY runs rehome with stdout and stderr on one pseudo-terminal and
// returns what the terminal received and the exit code.
func onPTY(t *testing.T, home string, args ...string) (string, int) {
	t.Helper()
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(rehomeBin, args...)
	cmd.Env = append(cleanEnv(), "REHOME_HOME="+home)
	cmd.Stdout, cmd.Stderr = slave, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	var seen bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&seen, master); close(done) }() // ends with EIO when the program exits
	cmd.Wait()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	return seen.String(), cmd.ProcessState.ExitCode()
}

// wantShown checks that no control sequence reached the terminal and
// that each sequence is shown in caret notation instead.
func wantShown(t *testing.T, what, out string, shown ...string) {
	t.Helper()
	if strings.ContainsAny(out, "\x1b\x07\u009b") {
		t.Errorf("%s: control sequences reached the terminal: %q", what, out)
	}
	for _, s := range shown {
		if !strings.Contains(out, s) {
			t.Errorf("%s: the terminal shows %q, want it to contain %q", what, out, s)
		}
	}
}

// A hostile model server's words reach a terminal shown, never obeyed
// (OSC 52 clipboard, window title, clear screen, a rewritten line): in
// the streamed answer, in its errors and notes, in `conversations show`
// and `list`, in `llm status`; through a pipe the answer is as it came.
func TestAskOnATerminal(t *testing.T) {
	home := t.TempDir()
	srv := recordedOllama(t, "escapes-answer")
	out, code := onPTY(t, home, "ask", "--server", srv.URL, "--model", "qwen2.5:7b", "q")
	if code != 0 {
		t.Fatalf("ask: exit %d: %q", code, out)
	}
	wantShown(t, "the answer", out, "^[]52;c;cm0gLXJmIH4=^G^[[2J^[]0;pwned^G", "\r\nrehome: all good")
	r := rehomeCLI(t, home, "conversations", "list", "--json")
	id := between(r.stdout, `"id": "`, `"`)
	out, _ = onPTY(t, home, "conversations", "show", id)
	wantShown(t, "conversations show", out, "^[]0;pwned^G")

	srv = recordedOllama(t, "escapes-error")
	out, code = onPTY(t, home, "ask", "--server", srv.URL, "--model", "qwen2.5:7b", "q")
	if code != 1 {
		t.Fatalf("ask against a failing server: exit %d: %q", code, out)
	}
	wantShown(t, "server errors", out, "^[]0;title-from-error^G", "^[[2J^[]52;c;ZXJy^Gmodel crashed")

	// A server whose model names hold escapes; the error of a server
	// that answers /models with one.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			fmt.Fprint(w, `{"object":"list","data":[{"id":"\u001b]0;model-title\u0007m","object":"model"}]}`)
			return
		}
		http.NotFound(w, r)
	}))
	defer evil.Close()
	out, _ = onPTY(t, home, "llm", "status", "--server", evil.URL)
	wantShown(t, "llm status", out, "^[]0;model-title^Gm")
	out, _ = onPTY(t, home, "conversations", "list")
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("conversations list: %q", out)
	}

	// Through a pipe: the bytes as they came.
	srv = recordedOllama(t, "escapes-answer")
	if r := rehomeCLI(t, home, "ask", "--server", srv.URL, "--model", "qwen2.5:7b", "q"); !strings.Contains(r.stdout, "\x1b]52;c;cm0gLXJmIH4=\x07") {
		t.Errorf("through a pipe: %+v", r)
	}

	// --verbose: the model's code and the cell's output.
	needPodman(t)
	srv = recordedOllama(t, "escapes-cell")
	csv, _ := filepath.Abs(filepath.Join("..", "..", "backend", "llm", "testdata", "sales.csv"))
	out, code = onPTY(t, home, "ask", "--verbose", "--timeout", "2m", "--file", csv, "--server", srv.URL, "--model", "qwen2.5:7b", "q")
	if code != 0 {
		t.Fatalf("ask --verbose: exit %d: %q", code, out)
	}
	wantShown(t, "--verbose", out, "# ^[]0;code-title^G", "^[]52;c;b3V0cHV0^G^[[2Jcell output")
}

func between(s, a, b string) string {
	_, rest, _ := strings.Cut(s, a)
	v, _, _ := strings.Cut(rest, b)
	return v
}
