package models

import (
	"fmt"

	"rehome/backend/bytesize"
	"rehome/backend/hardware"
)

// Machine is the memory a model can use: detected, or given by hand to
// plan a purchase.
type Machine struct {
	// VRAMBytes is the GPU memory a model may fill: the sum over the
	// dedicated GPUs, or the GPU's share of RAM on unified memory.
	VRAMBytes int64 `json:"vram_bytes"`
	GPUs      int   `json:"gpus"`
	Unified   bool  `json:"unified"`
	RAMBytes  int64 `json:"ram_bytes"`
	// ByHand is true for figures the user typed.
	ByHand      bool   `json:"by_hand"`
	Description string `json:"description"`
}

// MachineFrom turns a hardware report into the memory an estimate uses.
func MachineFrom(r hardware.Report) Machine {
	vram, unified, n := r.TotalVRAM()
	m := Machine{VRAMBytes: vram, GPUs: n, Unified: unified, RAMBytes: r.Memory.TotalBytes}
	switch {
	case n == 0:
		m.Description = fmt.Sprintf("this machine: CPU only, %s RAM", bytesize.Format(r.Memory.TotalBytes))
	case unified:
		m.Description = fmt.Sprintf("this machine: %s of unified memory usable by the GPU, %s RAM in all", bytesize.Format(vram), bytesize.Format(r.Memory.TotalBytes))
	default:
		m.Description = fmt.Sprintf("this machine: %s VRAM on %s, %s RAM", bytesize.Format(vram), gpuCount(n), bytesize.Format(r.Memory.TotalBytes))
	}
	return m
}

// gpuCount says "1 GPU", "2 GPUs" (not "GPU(s)").
func gpuCount(n int) string {
	if n == 1 {
		return "1 GPU"
	}
	return fmt.Sprintf("%d GPUs", n)
}

// ManualMachine is a machine given by hand ("24GiB" of VRAM on one GPU).
func ManualMachine(vram, ram int64, gpus int, unified bool) Machine {
	if vram == 0 {
		gpus = 0
	} else if gpus <= 0 {
		gpus = 1
	}
	m := Machine{VRAMBytes: vram, GPUs: gpus, Unified: unified, RAMBytes: ram, ByHand: true}
	if gpus == 0 {
		m.Description = fmt.Sprintf("planned: CPU only, %s RAM", bytesize.Format(ram))
	} else {
		m.Description = fmt.Sprintf("planned: %s VRAM on %s, %s RAM", bytesize.Format(vram), gpuCount(gpus), bytesize.Format(ram))
	}
	return m
}

// UsableRAM is RAM minus what the OS and other programs keep.
func (m Machine) UsableRAM() int64 {
	reserve := max(int64(ramReserveMin), m.RAMBytes/ramReserveShare)
	if m.RAMBytes <= reserve {
		return 0
	}
	return m.RAMBytes - reserve
}
