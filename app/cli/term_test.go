package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestTermSafe(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\twith tab\n", "plain text\twith tab\n"},
		{"\x1b[2J\x1b[H", "^[[2J^[[H"},                                           // clear screen
		{"\x1b]0;pwned\x07", "^[]0;pwned^G"},                                     // window title
		{"\x1b]52;c;cm0gLXJmIH4=\x1b\\", "^[]52;c;cm0gLXJmIH4=^[\\"},             // clipboard write
		{"Error: disk full\r\x1b[2KFinished", "Error: disk full\n^[[2KFinished"}, // erase and rewrite a line
		{"a\r\nb\r\n", "a\nb\n"},
		{"50%\r100%\r", "50%\n100%\n"},
		{"\u009b31mred\u009d0;x\u009c", "^[[31mred^[]0;x^[\\"}, // C1 CSI, OSC, ST
		{"bs\b\b\x7f", "bs^H^H^?"},
		{"\x00nul", "^@nul"},
		{"naïve — 日本 ✓", "naïve — 日本 ✓"},
		{"evil\u202etxt.exe", "evil<U+202E>txt.exe"},
		{"bad \xff byte", "bad \uFFFD byte"},
	} {
		if got := termSafe(c.in); got != c.want {
			t.Errorf("termSafe(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.ContainsAny(termSafe(c.in), "\x1b\x07\r\b\x00\u009b") {
			t.Errorf("termSafe(%q) left a control character", c.in)
		}
	}
	// Streamed in pieces: a sequence, a UTF-8 character and CR LF split
	// across pieces come out as if whole.
	in := "x\x1b]52;c;aGk=\x07 日本\r\nend\r"
	for cut := 0; cut <= len(in); cut++ {
		var f termFilter
		got := f.filter(in[:cut]) + f.filter(in[cut:]) + f.flush()
		if want := termSafe(in); got != want {
			t.Fatalf("cut at %d: %q, want %q", cut, got, want)
		}
	}
}

// openPTY opens a pseudo-terminal pair (what a terminal emulator gives a
// shell): the master to read what the program wrote, the slave as its
// stdout and stderr.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("skipped: no pseudo-terminals here: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0)
	}
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	return m, s
}

// TestRunOnATerminal: on a terminal, `rehome run` shows the code's escape
// sequences instead of obeying them; through a pipe the bytes pass as
// they came.
func TestRunOnATerminal(t *testing.T) {
	needPodmanCLI(t)
	home := t.TempDir()
	dir := t.TempDir()
	csv := filepath.Join(dir, "d.csv")
	os.WriteFile(csv, []byte("a\n1\n"), 0o600)
	script := filepath.Join(dir, "evil.py")
	os.WriteFile(script, []byte(`import sys
sys.stdout.write("\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b]0;pwned\x07")
sys.stdout.write("disk full\r\x1b[2Krehome: all good\n")
sys.stderr.write("\x9b31mred\x1b[0m\n")
`), 0o600)

	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(rehomeBin, "run", "--file", csv, script)
	cmd.Env = append(cleanEnv(), "REHOME_HOME="+home)
	cmd.Stdout, cmd.Stderr = slave, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	var seen bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&seen, master); close(done) }() // ends with EIO when the program exits
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run on a terminal: %v: %q", err, seen.String())
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	out := seen.String()
	if strings.ContainsAny(out, "\x1b\x07\u009b") {
		t.Fatalf("control sequences reached the terminal: %q", out)
	}
	for _, want := range []string{"^[]52;c;cm0gLXJmIH4=^G", "^[[2J", "disk full\r\n^[[2Krehome: all good", "^[[31mred"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal shows %q, want it to contain %q", out, want)
		}
	}
	// Through a pipe: untouched.
	r := rehomeCLI(t, home, "run", "--file", csv, script)
	if r.code != 0 || !strings.Contains(r.stdout, "\x1b]52;c;") || !strings.Contains(r.stdout, "disk full\r\x1b[2K") {
		t.Fatalf("through a pipe: %+v", r)
	}
}
