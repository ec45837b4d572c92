package hardware

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Runner runs a program and returns what it printed on standard output.
// The Detector runs nvidia-smi through it, so tests can answer with the
// output recorded on a real machine.
type Runner interface {
	Output(ctx context.Context, name string, args ...string) ([]byte, error)
}

// ExecRunner runs programs with os/exec.
type ExecRunner struct{}

// Output runs name with args and returns its standard output. A non-zero
// exit becomes an error carrying the program's first line of output.
func (ExecRunner) Output(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	out, err := cmd.Output()
	if err != nil {
		msg := firstLine(string(out))
		var ee *exec.ExitError
		if errors.As(err, &ee) && msg == "" {
			msg = firstLine(string(ee.Stderr))
		}
		if msg != "" {
			return out, fmt.Errorf("%w: %s", err, msg)
		}
		return out, err
	}
	return out, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// NvidiaSMIArgs is the query rehome runs; recorded fixture files are the
// answer to exactly this command.
var NvidiaSMIArgs = []string{
	"--query-gpu=index,pci.bus_id,name,memory.total,memory.used,memory.free,driver_version",
	"--format=csv,noheader,nounits",
}

// nvidiaSMITimeout bounds nvidia-smi, which hangs when the driver is wedged.
const nvidiaSMITimeout = 10 * time.Second

// nvidiaGPU is what NVML or nvidia-smi reports about one GPU.
type nvidiaGPU struct {
	index      int
	busID      string // normalized dddd:bb:dd.f
	name       string
	total      int64
	used       int64
	free       int64
	totalKnown bool
	freeKnown  bool
	driver     string
	source     string // SourceNVML or SourceNvidiaSMI
	raw        string // the memory fields as printed, for notes
}

const mib = 1 << 20

// parseNvidiaSMI parses the answer to NvidiaSMIArgs: one line per GPU,
// "index, bus id, name, total MiB, used MiB, free MiB, driver". Fields the
// driver cannot report read "[N/A]" or "[Not Supported]".
func parseNvidiaSMI(out []byte) ([]nvidiaGPU, error) {
	var gpus []nvidiaGPU
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) < 7 {
			return nil, fmt.Errorf("nvidia-smi printed %q, expected 7 comma-separated fields", line)
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		// A product name never holds a comma today; join defensively.
		n := len(f)
		name := strings.Join(f[2:n-4], ",")
		g := nvidiaGPU{busID: normalizePCIAddress(f[1]), name: name, driver: f[n-1], source: SourceNvidiaSMI}
		g.index, _ = strconv.Atoi(f[0])
		total, okT := parseMiB(f[n-4])
		used, okU := parseMiB(f[n-3])
		free, okF := parseMiB(f[n-2])
		g.raw = fmt.Sprintf("memory.total=%s memory.used=%s memory.free=%s", f[n-4], f[n-3], f[n-2])
		if okT {
			g.total, g.totalKnown = total, true
		}
		switch {
		case okF:
			g.free, g.freeKnown = free, true
		case okT && okU && used <= total:
			g.free, g.freeKnown = total-used, true
		}
		if okU {
			g.used = used
		}
		gpus = append(gpus, g)
	}
	return gpus, nil
}

func parseMiB(s string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return 0, false // [N/A], [Not Supported], [Unknown Error]
	}
	return n * mib, true
}

// findNvidiaSMI returns the nvidia-smi to run: $REHOME_NVIDIA_SMI, else the
// one on PATH, else the places drivers install it (WSL keeps its own).
func findNvidiaSMI() string {
	if p := os.Getenv("REHOME_NVIDIA_SMI"); p != "" {
		return p
	}
	if p, err := exec.LookPath("nvidia-smi"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/bin/nvidia-smi", "/usr/lib/wsl/lib/nvidia-smi", "/opt/nvidia/bin/nvidia-smi"} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}
