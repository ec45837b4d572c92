//go:build !desktop

package window

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Here is false in the terminal binary, rehome: it links neither GTK nor
// WebKitGTK (a command does not pay ~100 ms of library loading for a
// window it never opens), and starts the window binary instead.
const Here = false

// windowBinaryName is the window binary's file name (build/bin beside
// rehome; /usr/lib/rehome in the Debian package).
const windowBinaryName = "rehome-window"

// findWindowBinary returns the window binary: $REHOME_WINDOW_BIN, else
// rehome-window beside this executable, else ../lib/rehome/rehome-window
// from it (the Debian package's /usr/bin/rehome and
// /usr/lib/rehome/rehome-window).
func findWindowBinary() (string, error) {
	if p := os.Getenv("REHOME_WINDOW_BIN"); p != "" {
		return p, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("%w: %v", errNoWindowBinary, err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	dir := filepath.Dir(exe)
	tried := []string{filepath.Join(dir, windowBinaryName), filepath.Join(dir, "..", "lib", "rehome", windowBinaryName)}
	for _, p := range tried {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return filepath.Clean(p), nil
		}
	}
	return "", fmt.Errorf("%w (no %s or %s): reinstall rehome (`make build` builds both binaries), or use rehome in a browser with `rehome serve`",
		errNoWindowBinary, filepath.Clean(tried[0]), filepath.Clean(tried[1]))
}

// Exec replaces this process with the window binary, passing the file to
// open: same process id, same environment, same data folder. It returns
// only when that fails.
func Exec(openFile string, verbose bool) int {
	bin, err := findWindowBinary()
	if err != nil {
		return windowFail(err)
	}
	argv := []string{bin}
	if verbose {
		argv = append(argv, "--verbose")
	}
	if openFile != "" {
		argv = append(argv, openFile)
	}
	err = syscall.Exec(bin, argv, os.Environ())
	return windowFail(fmt.Errorf("start the window (%s): %w (run `rehome serve` to use rehome in a browser)", bin, err))
}
