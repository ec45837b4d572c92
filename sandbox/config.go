package sandbox

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"time"

	"rehome/backend/bytesize"
)

// Limits are the ceilings of one run. Zero fields take the defaults of
// DefaultLimits when passed through Limits.WithDefaults.
type Limits struct {
	// Timeout is the wall-clock time the code may run before the whole
	// container is killed from outside.
	Timeout time.Duration `json:"timeout_ns"`
	// Memory is the memory ceiling in bytes (RAM, tmpfs included; no swap).
	Memory int64 `json:"memory_bytes"`
	// CPUs is the CPU quota in cores (1.5 = one and a half cores).
	CPUs float64 `json:"cpus"`
	// Pids is the most processes and threads the code may have at once.
	Pids int64 `json:"pids"`
	// StdoutMax and StderrMax cap what is kept of each stream, in bytes.
	StdoutMax int64 `json:"stdout_max_bytes"`
	StderrMax int64 `json:"stderr_max_bytes"`
	// OutputFiles caps the number of files (plots included) taken back.
	OutputFiles int `json:"output_files"`
	// OutputBytes caps their total size; it is also the size of the
	// in-memory file system at /mnt/data.
	OutputBytes int64 `json:"output_bytes"`
	// TmpSize is the size of the in-memory /tmp.
	TmpSize int64 `json:"tmp_bytes"`
}

// Size units, as package bytesize defines them.
const (
	kiB = bytesize.KiB
	MiB = bytesize.MiB
	giB = bytesize.GiB
)

// DefaultLimits are the ceilings of a run when the caller names none.
var DefaultLimits = Limits{
	Timeout:     30 * time.Second,
	Memory:      512 * MiB,
	CPUs:        1,
	Pids:        128,
	StdoutMax:   1 * MiB,
	StderrMax:   1 * MiB,
	OutputFiles: 64,
	OutputBytes: 64 * MiB,
	TmpSize:     128 * MiB,
}

// Bounds of what a caller may ask for.
const (
	maxTimeout    = 24 * time.Hour
	minMemory     = 32 * MiB
	MaxScriptSize = 1 << 20
	maxOutputFile = 100000
)

// WithDefaults returns l with every zero field set from DefaultLimits.
func (l Limits) WithDefaults() Limits { return l.Merge(DefaultLimits) }

// Merge fills the zero fields of l from base.
func (l Limits) Merge(base Limits) Limits {
	l.Timeout = cmp.Or(l.Timeout, base.Timeout)
	l.Memory = cmp.Or(l.Memory, base.Memory)
	l.CPUs = cmp.Or(l.CPUs, base.CPUs)
	l.Pids = cmp.Or(l.Pids, base.Pids)
	l.StdoutMax = cmp.Or(l.StdoutMax, base.StdoutMax)
	l.StderrMax = cmp.Or(l.StderrMax, base.StderrMax)
	l.OutputFiles = cmp.Or(l.OutputFiles, base.OutputFiles)
	l.OutputBytes = cmp.Or(l.OutputBytes, base.OutputBytes)
	l.TmpSize = cmp.Or(l.TmpSize, base.TmpSize)
	return l
}

// Validate reports the first limit that is out of range, in the user's words.
func (l Limits) Validate() error {
	switch {
	case l.Timeout <= 0 || l.Timeout > maxTimeout:
		return fmt.Errorf("timeout %s is out of range: give between 1s and 24h", l.Timeout)
	case l.Memory < minMemory:
		return fmt.Errorf("memory %s is too small: give at least %s", bytesize.Format(l.Memory), bytesize.Format(minMemory))
	case l.CPUs <= 0 || l.CPUs > 1024 || math.IsNaN(l.CPUs):
		return fmt.Errorf("cpus %g is out of range: give a positive number of cores such as 1 or 1.5", l.CPUs)
	case l.Pids < 8 || l.Pids > 1<<20:
		return fmt.Errorf("pids %d is out of range: give between 8 and %d", l.Pids, 1<<20)
	case l.StdoutMax < 0 || l.StderrMax < 0:
		return errors.New("output caps cannot be negative")
	case l.OutputFiles < 0 || l.OutputFiles > maxOutputFile:
		return fmt.Errorf("output file count %d is out of range: give between 0 and %d", l.OutputFiles, maxOutputFile)
	case l.OutputBytes < MiB:
		return fmt.Errorf("output size %s is too small: give at least 1 MiB", bytesize.Format(l.OutputBytes))
	case l.TmpSize < MiB:
		return fmt.Errorf("/tmp size %s is too small: give at least 1 MiB", bytesize.Format(l.TmpSize))
	}
	return nil
}
