package window

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// rehomeBin is the terminal binary under test: $REHOME_BIN (make test sets
// it to build/bin/rehome), else one built here from the entry with the
// core tags alone, as `make build` builds the terminal binary.
var rehomeBin string

func TestMain(m *testing.M) {
	rehomeBin = os.Getenv("REHOME_BIN")
	if rehomeBin == "" {
		dir, err := os.MkdirTemp("", "rehome-bin-")
		if err != nil {
			panic(err)
		}
		rehomeBin = filepath.Join(dir, "rehome")
		cmd := exec.Command("go", "build", "-tags", "remote exclude_graphdriver_btrfs btrfs_noversion exclude_graphdriver_devicemapper containers_image_openpgp", "-o", rehomeBin, "../..")
		cmd.Env = append(os.Environ(), "CGO_CFLAGS=-Wno-deprecated-declarations")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build rehome for the window's tests:", err)
			os.Exit(1)
		}
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	if abs, err := filepath.Abs(rehomeBin); err == nil {
		rehomeBin = abs
	}
	os.Exit(m.Run())
}

// cleanEnv is this process's environment without a display or a data
// folder of its own.
func cleanEnv() []string {
	var env []string
	for _, e := range os.Environ() {
		if strings.HasPrefix(e, "DISPLAY=") || strings.HasPrefix(e, "WAYLAND_DISPLAY=") || strings.HasPrefix(e, "REHOME_HOME=") {
			continue
		}
		env = append(env, e)
	}
	return env
}
