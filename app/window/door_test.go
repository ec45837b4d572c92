package window

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The terminal beside a real window (rehome-window on an Xvfb display):
// the commands run in the window's process, on its open database, so
// what the terminal adds the window holds at once. Needs the window
// binary: $REHOME_WINDOW_BIN, else build/bin/rehome-window.
func TestTerminalBesideTheWindow(t *testing.T) {
	win := os.Getenv("REHOME_WINDOW_BIN")
	if win == "" {
		win, _ = filepath.Abs(filepath.Join("..", "..", "build", "bin", "rehome-window"))
	}
	if _, err := os.Stat(win); err != nil {
		t.Skipf("skipped: no window binary (%v): `make build`, or set REHOME_WINDOW_BIN", err)
	}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("skipped: no Xvfb (apt-get install xvfb)")
	}
	home, rt := t.TempDir(), t.TempDir()
	x := exec.Command("Xvfb", ":"+displayFor(t), "-screen", "0", "1280x1024x24", "-nolisten", "tcp")
	if err := x.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Process.Kill(); x.Wait() })
	env := append(cleanEnv(), "REHOME_HOME="+home, "XDG_RUNTIME_DIR="+rt)
	w := exec.Command(win)
	w.Env = append(env, "DISPLAY=:"+displayFor(t))
	var wout bytes.Buffer
	w.Stdout, w.Stderr = &wout, &wout
	time.Sleep(time.Second)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Process.Kill(); w.Wait() })
	// The window opens its database once it shows; then the socket is there.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if socks, _ := filepath.Glob(filepath.Join(rt, "rehome", "door-*.sock")); len(socks) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the window opened no socket for the terminal: %s", wout.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	run := func(args ...string) (string, int) {
		c := exec.Command(rehomeBin, args...)
		c.Env = env
		out, _ := c.CombinedOutput()
		return string(out), c.ProcessState.ExitCode()
	}
	if out, code := run("assistants", "add", "--name", "Beside the window"); code != 0 {
		t.Fatalf("assistants add beside the window: %d %s", code, out)
	}
	if out, code := run("assistants", "list"); code != 0 || !strings.Contains(out, "Beside the window") {
		t.Fatalf("assistants list beside the window: %d %s", code, out)
	}
	if out, code := run("doctor"); strings.Contains(out, "in use") {
		t.Fatalf("doctor beside the window: %d %s", code, out)
	}
	log, _ := os.ReadFile(filepath.Join(home, "rehome.log"))
	if !strings.Contains(string(log), `"msg":"terminal command"`) {
		t.Fatalf("the window's log does not show the terminal's commands:\n%s", log)
	}
}

// displayFor is a display number of this test process's own.
func displayFor(*testing.T) string { return fmt.Sprint(500 + os.Getpid()%400) }
