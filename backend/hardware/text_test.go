package hardware

import (
	"strings"
	"testing"
)

func TestWriteText(t *testing.T) {
	for machine, want := range map[string][]string{
		"vm-nodrm":       {"CPU     AMD EPYC: 2 cores, 2 threads (x86_64)", "RAM     23.5 GiB total", "GPU     none: CPU only", "CPU only: no GPU"},
		"nvidia-rtx3090": {"GPU 0   NVIDIA GeForce RTX 3090 (NVIDIA, 0000:0b:00.0, VGA compatible controller, driver nvidia)", "VRAM 24 GiB total, 22.6 GiB free: measured by nvidia-smi (driver 550.120)"},
		"nvidia-2x-l4":   {"GPU 1   NVIDIA L4", "Display 0 ASPEED device 0x2000", "no model runtime computes on it", "apt-get install pci.ids"},
		"nvidia-gb10-na": {"shared with system RAM (unified)", "answered [N/A]"},
	} {
		d, _ := fixture(t, machine)
		var b strings.Builder
		if err := detect(t, d).WriteText(&b); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: output lacks %q:\n%s", machine, w, b.String())
			}
		}
	}
}
