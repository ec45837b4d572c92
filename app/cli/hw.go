package cli

import (
	"context"
	"flag"
	"time"

	"rehome/backend/hardware"
)

// detectTimeout bounds a detection (nvidia-smi is the slow part).
const detectTimeout = 30 * time.Second

// hwFlags are the detection flags hw and fit share.
type hwFlags struct {
	root, nvidiaSMI string
}

// addHWFlags adds --root and --nvidia-smi to fs.
func addHWFlags(fs *flag.FlagSet) *hwFlags {
	var h hwFlags
	fs.StringVar(&h.root, "root", "", "read /sys, /proc and pci.ids under this folder instead of / (as GHW_CHROOT does)")
	fs.StringVar(&h.nvidiaSMI, "nvidia-smi", "", "the nvidia-smi to run (default: $REHOME_NVIDIA_SMI, else nvidia-smi on PATH)")
	return &h
}

// detect detects the machine through the command's core, with these
// flags' sources.
func (h *hwFlags) detect(env *cliEnv) (hardware.Report, error) {
	ctx, cancel := context.WithTimeout(env.context(), detectTimeout)
	defer cancel()
	env.hw = &hardware.Options{Root: h.root, NvidiaSMI: h.nvidiaSMI}
	return env.sandboxCore().Hardware().Report(ctx)
}

func cmdHW(env *cliEnv, args []string) int {
	fs := env.flags("hw", "hw [--json]")
	asJSON := fs.Bool("json", false, "print JSON (every figure in bytes, GPUs as a list)")
	h := addHWFlags(fs)
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	r, err := h.detect(env)
	if code, stop := env.result(r, err, *asJSON); stop {
		return code
	}
	if err := r.WriteText(env.stdout); err != nil {
		return env.fail(err)
	}
	return exitOK
}
