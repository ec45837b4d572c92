package window

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The terminal binary must not load the window's libraries: a command
// would pay ~100 ms of GTK and WebKitGTK loading before any work. With
// REHOME_BIN (make gotest) this checks the built build/bin/rehome.
func TestTerminalBinaryLinksNoGTK(t *testing.T) {
	out, err := exec.Command("ldd", rehomeBin).CombinedOutput()
	if err != nil {
		t.Fatalf("ldd %s: %v\n%s", rehomeBin, err, out)
	}
	libs := strings.Count(strings.TrimSpace(string(out)), "\n") + 1
	for _, bad := range []string{"libgtk", "libwebkit", "libgdk", "libjavascriptcore"} {
		if strings.Contains(string(out), bad) {
			t.Fatalf("%s links %s (%d libraries): the window's libraries belong in rehome-window only\n%s", rehomeBin, bad, libs, out)
		}
	}
	if libs > 10 {
		t.Errorf("%s links %d libraries, expected a handful\n%s", rehomeBin, libs, out)
	}
	t.Logf("%s: %d libraries", rehomeBin, libs)
}

// fakeWindow writes a stand-in for rehome-window at path: it records its
// process id, its arguments and its data folder in rec, then exits 0.
func fakeWindow(t *testing.T, path, rec string) {
	t.Helper()
	script := "#!/bin/sh\n{ echo \"pid=$$\"; echo \"home=$REHOME_HOME\"; for a in \"$@\"; do echo \"arg=$a\"; done; } > " + rec + "\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// startWithDisplay runs bin with a display set (no X server is needed: the
// terminal binary only hands over) and returns its pid, output and code.
func startWithDisplay(t *testing.T, bin, home string, extraEnv []string, args ...string) (pid int, out string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(cleanEnv(), append([]string{"REHOME_HOME=" + home, "DISPLAY=:97"}, extraEnv...)...)
	var b strings.Builder
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s %v did not return", bin, args)
	}
	return cmd.Process.Pid, b.String(), cmd.ProcessState.ExitCode()
}

func readRecord(t *testing.T, rec string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatalf("the window binary was not started: %v", err)
	}
	m := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		k, v, _ := strings.Cut(l, "=")
		m[k] = append(m[k], v)
	}
	return m
}

// With no command, or a file to open ("Open with rehome"), the terminal
// binary becomes the window binary: the same process (exec, so the
// desktop's and the tests' process id is the window's), the same data
// folder, the file passed on — found through $REHOME_WINDOW_BIN, beside
// the binary (build/bin, install.sh) and in ../lib/rehome (the package).
func TestWindowStartsWindowBinary(t *testing.T) {
	home := t.TempDir()
	csv := filepath.Join(t.TempDir(), "sales.csv")
	os.WriteFile(csv, []byte("a,b\n1,2\n"), 0o644)

	t.Run("REHOME_WINDOW_BIN", func(t *testing.T) {
		rec := filepath.Join(t.TempDir(), "rec")
		win := filepath.Join(t.TempDir(), "rehome-window")
		fakeWindow(t, win, rec)
		pid, out, code := startWithDisplay(t, rehomeBin, home, []string{"REHOME_WINDOW_BIN=" + win}, csv)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, out)
		}
		m := readRecord(t, rec)
		if m["pid"][0] != strconv.Itoa(pid) {
			t.Errorf("the window ran as pid %s, rehome was %d: not an exec", m["pid"][0], pid)
		}
		if m["home"][0] != home || len(m["arg"]) != 1 || m["arg"][0] != csv {
			t.Errorf("the window got %v", m)
		}
		rec2 := filepath.Join(t.TempDir(), "rec")
		fakeWindow(t, win, rec2)
		if _, out, code := startWithDisplay(t, rehomeBin, home, []string{"REHOME_WINDOW_BIN=" + win}, "-v"); code != 0 {
			t.Fatalf("no arguments: exit %d: %s", code, out)
		}
		if m := readRecord(t, rec2); len(m["arg"]) != 1 || m["arg"][0] != "--verbose" {
			t.Errorf("no arguments but -v: the window got %v", m["arg"])
		}
	})

	for _, layout := range []struct{ name, bin, win string }{
		{"beside", "bin/rehome", "bin/rehome-window"},
		{"package", "usr/bin/rehome", "usr/lib/rehome/rehome-window"},
	} {
		t.Run(layout.name, func(t *testing.T) {
			root := t.TempDir()
			bin := filepath.Join(root, layout.bin)
			copyBinary(t, rehomeBin, bin)
			rec := filepath.Join(t.TempDir(), "rec")
			fakeWindow(t, filepath.Join(root, layout.win), rec)
			if _, out, code := startWithDisplay(t, bin, home, nil, csv); code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			if m := readRecord(t, rec); len(m["arg"]) != 1 || m["arg"][0] != csv {
				t.Errorf("the window got %v", m)
			}
		})
	}

	t.Run("missing", func(t *testing.T) {
		bin := filepath.Join(t.TempDir(), "rehome")
		copyBinary(t, rehomeBin, bin)
		_, out, code := startWithDisplay(t, bin, home, nil)
		if code != 1 || !strings.Contains(out, "the window is not installed") || !strings.Contains(out, "rehome serve") {
			t.Fatalf("with no window binary: exit %d, %q", code, out)
		}
	})
}

// copyBinary puts a copy of src at dst (a hard link when it can).
func copyBinary(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Link(src, dst) == nil {
		return
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
}
