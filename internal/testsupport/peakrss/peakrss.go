package peakrss

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Time is GNU time, which `build/setup.sh test` installs (Debian's time).
const Time = "/usr/bin/time"

// Wrap makes cmd run under GNU time, in its own process group (a
// cancelled context kills the command too, not only time), and returns
// the function that reads the command's peak in bytes once it has ended.
// Call it before cmd.Start or cmd.Run.
func Wrap(cmd *exec.Cmd) (peak func() (int64, error), err error) {
	if _, err := os.Stat(Time); err != nil {
		return nil, fmt.Errorf("peak memory is measured with GNU time (%s): run `build/setup.sh test` (Debian package time): %w", Time, err)
	}
	f, err := os.CreateTemp("", "rehome-peakrss-")
	if err != nil {
		return nil, err
	}
	out := f.Name()
	f.Close()
	path := cmd.Path
	if !filepath.IsAbs(path) {
		if path, err = exec.LookPath(path); err != nil {
			return nil, err
		}
	}
	cmd.Args = append([]string{Time, "-q", "-f", "%M", "-o", out, path}, cmd.Args[1:]...)
	cmd.Path = Time
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if cmd.Cancel != nil { // made by exec.CommandContext
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	}
	return func() (int64, error) {
		defer os.Remove(out)
		b, err := os.ReadFile(out)
		if err != nil {
			return 0, err
		}
		// The last line is the format's; a killed command adds a line
		// before it.
		lines := strings.Fields(strings.TrimSpace(string(b)))
		if len(lines) == 0 {
			return 0, errors.New("GNU time wrote no peak")
		}
		kb, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("GNU time wrote %q: %w", b, err)
		}
		return kb << 10, nil
	}, nil
}
