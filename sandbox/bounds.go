package sandbox

import (
	"fmt"
	goruntime "runtime"
	"strconv"
	"syscall"
	"time"

	"rehome/backend/bytesize"
)

// One policy for the limits a user may set, on every face: the Settings
// screen (app.SetRunLimits) and `rehome run`'s flags. Limits.Validate
// says what the sandbox can apply at all; these bounds say what is safe
// on this machine.

// LimitBounds are the safe range of each limit a user may set:
// wide enough for real work, never so wide that one run can take the
// machine down.
type LimitBounds struct {
	Min Limits `json:"min"`
	Max Limits `json:"max"`
}

// MachineBounds returns the range each run limit may be set within on
// this machine (memory up to three quarters of its RAM, CPUs up to its
// cores). Settings and `rehome run` both hold limits to it (CheckBounds).
func MachineBounds() LimitBounds {
	ram := int64(8) << 30
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil && si.Totalram > 0 {
		ram = int64(si.Totalram) * int64(si.Unit)
	}
	// Three quarters of the RAM, in whole GiB so the form shows a round number.
	maxMem := max(DefaultLimits.Memory, min(ram/4*3/giB*giB, 256*giB))
	return LimitBounds{
		Min: Limits{
			Timeout: time.Second, Memory: 64 * MiB, CPUs: 0.25, Pids: 16,
			StdoutMax: 16 * kiB, StderrMax: 16 * kiB, OutputFiles: 1,
			OutputBytes: MiB, TmpSize: 16 * MiB,
		},
		Max: Limits{
			Timeout: time.Hour, Memory: maxMem, CPUs: float64(goruntime.NumCPU()), Pids: 4096,
			StdoutMax: 64 * MiB, StderrMax: 64 * MiB, OutputFiles: 1000,
			OutputBytes: 4 * giB, TmpSize: 4 * giB,
		},
	}
}

// CheckBounds names the first limit of l outside b, in the user's words.
func CheckBounds(l Limits, b LimitBounds) error {
	out := func(what, v, lo, hi string) error {
		return fmt.Errorf("%s %s is outside the safe range: choose between %s and %s", what, v, lo, hi)
	}
	sz := bytesize.Format
	switch {
	case l.Timeout < b.Min.Timeout || l.Timeout > b.Max.Timeout:
		return out("the time limit", l.Timeout.String(), b.Min.Timeout.String(), b.Max.Timeout.String())
	case l.Memory < b.Min.Memory || l.Memory > b.Max.Memory:
		return out("the memory limit", sz(l.Memory), sz(b.Min.Memory), sz(b.Max.Memory)+" (three quarters of this machine's memory)")
	case l.CPUs < b.Min.CPUs || l.CPUs > b.Max.CPUs:
		return out("the CPU limit", strconv.FormatFloat(l.CPUs, 'g', -1, 64)+" cores", strconv.FormatFloat(b.Min.CPUs, 'g', -1, 64), strconv.FormatFloat(b.Max.CPUs, 'g', -1, 64)+" (this machine's cores)")
	case l.Pids < b.Min.Pids || l.Pids > b.Max.Pids:
		return out("the process limit", strconv.FormatInt(l.Pids, 10), strconv.FormatInt(b.Min.Pids, 10), strconv.FormatInt(b.Max.Pids, 10))
	case l.StdoutMax < b.Min.StdoutMax || l.StdoutMax > b.Max.StdoutMax:
		return out("the printed-output cap", sz(l.StdoutMax), sz(b.Min.StdoutMax), sz(b.Max.StdoutMax))
	case l.StderrMax < b.Min.StderrMax || l.StderrMax > b.Max.StderrMax:
		return out("the error-output cap", sz(l.StderrMax), sz(b.Min.StderrMax), sz(b.Max.StderrMax))
	case l.OutputFiles < b.Min.OutputFiles || l.OutputFiles > b.Max.OutputFiles:
		return out("the output file count", strconv.Itoa(l.OutputFiles), strconv.Itoa(b.Min.OutputFiles), strconv.Itoa(b.Max.OutputFiles))
	case l.OutputBytes < b.Min.OutputBytes || l.OutputBytes > b.Max.OutputBytes:
		return out("the output size cap", sz(l.OutputBytes), sz(b.Min.OutputBytes), sz(b.Max.OutputBytes))
	case l.TmpSize < b.Min.TmpSize || l.TmpSize > b.Max.TmpSize:
		return out("the /tmp size", sz(l.TmpSize), sz(b.Min.TmpSize), sz(b.Max.TmpSize))
	case l.OutputBytes+l.TmpSize > l.Memory*4:
		return fmt.Errorf("the output size cap and /tmp (%s together) live in memory: keep them within four times the memory limit (%s), or raise it", sz(l.OutputBytes+l.TmpSize), sz(l.Memory))
	}
	return nil
}
