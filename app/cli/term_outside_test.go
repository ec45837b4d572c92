package cli

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// onTerminal runs rehome with its stdout and stderr on a pseudo-terminal
// and returns what the terminal was sent.
func onTerminal(t *testing.T, home string, args ...string) string {
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
	go func() { io.Copy(&seen, master); close(done) }()
	cmd.Wait()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	return seen.String()
}

// escapesGGUF is a GGUF header whose architecture is a terminal escape
// (the window title, the screen cleared, the clipboard written).
func escapesGGUF(t *testing.T) string {
	var b bytes.Buffer
	str := func(s string) { binary.Write(&b, binary.LittleEndian, uint64(len(s))); b.WriteString(s) }
	b.WriteString("GGUF")
	binary.Write(&b, binary.LittleEndian, uint32(3))
	binary.Write(&b, binary.LittleEndian, uint64(0)) // tensors
	binary.Write(&b, binary.LittleEndian, uint64(1)) // metadata
	str("general.architecture")
	binary.Write(&b, binary.LittleEndian, uint32(8)) // string
	str("llama\x1b]0;pwned\x07\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07")
	p := filepath.Join(t.TempDir(), "evil.gguf")
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Outside strings — a GGUF's architecture in `models add`'s refusal, an
// API's answer in `actions test` —
// reach a terminal through one filter: shown, never obeyed.
func TestOutsideStringsOnATerminal(t *testing.T) {
	home := t.TempDir()
	out := onTerminal(t, home, "models", "add", escapesGGUF(t))
	if !strings.Contains(out, "rehome:") {
		t.Fatalf("models add said nothing: %q", out)
	}
	if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, "^[]0;pwned^G") {
		t.Fatalf("the GGUF's architecture reached the terminal raw: %q", out)
	}

	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "{\"id\": \"\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\"}")
	}))
	defer api.Close()
	sp := shopSchemaFile(t, api.URL)
	addAssistant(t, home, "--name", "Esc")
	if r := rehomeCLI(t, home, "actions", "add", "Esc", sp, "--allow-local"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	out = onTerminal(t, home, "actions", "test", "Esc", "getOrder", "--args", `{"id": "1"}`)
	if !strings.Contains(out, "HTTP 200") || strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, "^[]52;c;") {
		t.Fatalf("the API's answer reached the terminal raw: %q", out)
	}
	// Through a pipe the bytes pass as they came (what --json and scripts read).
	if r := rehomeCLI(t, home, "actions", "test", "Esc", "getOrder", "--args", `{"id": "1"}`); !strings.Contains(r.stdout, "\x1b]52;c;") {
		t.Fatalf("through a pipe: %+v", r)
	}
}
