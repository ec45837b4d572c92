package hardware

import (
	"fmt"
	"io"
	"strings"

	"rehome/backend/bytesize"
)

// WriteText prints the report for a terminal, every figure with its source.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	cpu := r.CPU
	fmt.Fprintf(&b, "CPU     %s: %d cores, %d threads", cpu.Model, cpu.Cores, cpu.Threads)
	if cpu.Sockets > 1 {
		fmt.Fprintf(&b, " on %d sockets", cpu.Sockets)
	}
	if cpu.Arch != "" {
		fmt.Fprintf(&b, " (%s)", cpu.Arch)
	}
	b.WriteString("\n")
	if len(cpu.Features) > 0 {
		fmt.Fprintf(&b, "        instruction sets: %s\n", strings.Join(cpu.Features, " "))
	}
	if r.Memory.TotalBytes > 0 {
		fmt.Fprintf(&b, "RAM     %s total, %s available (%s)\n", bytesize.Format(int64(r.Memory.TotalBytes)), bytesize.Format(int64(r.Memory.AvailableBytes)), r.Memory.Source)
	} else {
		b.WriteString("RAM     unknown\n")
	}
	if len(r.GPUs) == 0 {
		b.WriteString("GPU     none: CPU only\n")
	}
	for _, g := range r.GPUs {
		writeGPU(&b, "GPU", g)
	}
	for _, g := range r.OtherDisplays {
		writeGPU(&b, "Display", g)
	}
	if len(r.Notes) > 0 {
		b.WriteString("\nNotes\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	fmt.Fprintf(&b, "\nDetected in %.1f ms", r.DurationMS)
	if r.Root != "/" && r.Root != "" {
		fmt.Fprintf(&b, " under %s", r.Root)
	}
	b.WriteString(".\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeGPU(b *strings.Builder, label string, g GPU) {
	fmt.Fprintf(b, "%-7s %s (%s, %s, %s", fmt.Sprintf("%s %d", label, g.Index), g.Product, g.Vendor, g.PCIAddress, g.Class)
	if g.Driver != "" {
		fmt.Fprintf(b, ", driver %s", g.Driver)
	}
	b.WriteString(")\n")
	switch {
	case g.VRAMSource == SourceUnknown:
		fmt.Fprintf(b, "        VRAM %s\n", g.VRAMDetail)
	case g.VRAMFreeKnown:
		fmt.Fprintf(b, "        VRAM %s total, %s free: %s\n", bytesize.Format(int64(g.VRAMTotalBytes)), bytesize.Format(int64(g.VRAMFreeBytes)), g.VRAMDetail)
	default:
		fmt.Fprintf(b, "        VRAM %s total: %s\n", bytesize.Format(int64(g.VRAMTotalBytes)), g.VRAMDetail)
	}
	for _, n := range g.Notes {
		fmt.Fprintf(b, "        %s\n", n)
	}
}
