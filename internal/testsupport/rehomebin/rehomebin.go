package rehomebin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// CoreTags are the build tags of every build of rehome (the Makefile's
// TAGS): podman's bindings need them.
const CoreTags = "remote exclude_graphdriver_btrfs btrfs_noversion exclude_graphdriver_devicemapper containers_image_openpgp"

// Main is a TestMain: it sets *bin to $REHOME_BIN (made absolute) or to a
// rehome built from this checkout, runs the tests and exits with their
// code. what names the tests in a failed build's message.
func Main(m *testing.M, bin *string, what string) {
	if *bin = os.Getenv("REHOME_BIN"); *bin != "" {
		if abs, err := filepath.Abs(*bin); err == nil {
			*bin = abs
		}
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "rehome-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, "rehome")
	if err := Build(*bin); err != nil {
		fmt.Fprintf(os.Stderr, "build rehome for %s: %v\n", what, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Binary is $REHOME_BIN, else rehome built from this checkout into the
// test's temporary folder.
func Binary(tb testing.TB) string {
	tb.Helper()
	if b := os.Getenv("REHOME_BIN"); b != "" {
		return b
	}
	bin := filepath.Join(tb.TempDir(), "rehome")
	if err := Build(bin); err != nil {
		tb.Fatalf("build rehome: %v", err)
	}
	return bin
}

// Build builds the terminal's rehome (the core tags: no window) from this
// module's entry into out.
func Build(out string) error {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("find the module: %w", err)
	}
	cmd := exec.Command("go", "build", "-tags", CoreTags, "-o", out, ".")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	cmd.Env = append(os.Environ(), "CGO_CFLAGS=-Wno-deprecated-declarations")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w\n%s", err, msg)
	}
	return nil
}

// Env is this process's environment without a display (no test opens a
// window by accident) and without a data folder of its own.
func Env() []string {
	var env []string
	for _, e := range os.Environ() {
		if strings.HasPrefix(e, "DISPLAY=") || strings.HasPrefix(e, "WAYLAND_DISPLAY=") || strings.HasPrefix(e, "REHOME_HOME=") {
			continue
		}
		env = append(env, e)
	}
	return env
}
