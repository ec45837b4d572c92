package hardware

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkDetect measures one detection. "host" is this machine with a
// Detector reused across calls (as the session cache does on Refresh);
// "host-cold" builds a new Detector each time, paying pci.ids parsing when
// the machine has a display device; the fixtures are the recorded machines
// with the nvidia-smi answer read from a file.
func BenchmarkDetect(b *testing.B) {
	ctx := context.Background()
	b.Run("host", func(b *testing.B) {
		d := NewDetector(Options{})
		for b.Loop() {
			if _, err := d.Detect(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("host-cold", func(b *testing.B) {
		for b.Loop() {
			if _, err := NewDetector(Options{}).Detect(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, m := range []string{"nvidia-rtx3090", "nvidia-2x-l4", "amd-rx7900xtx", "intel-igpu-laptop", "vm-nodrm", "nvidia-gb10-na"} {
		b.Run(m, func(b *testing.B) {
			d := NewDetector(Options{Root: filepath.Join("testdata", m), NvidiaSMI: "nvidia-smi", Runner: fileRunner(filepath.Join("testdata", m, "nvidia-smi.txt"))})
			for b.Loop() {
				if _, err := d.Detect(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// The cost of parsing the full Debian pci.ids, paid once per Detector
	// on a machine with a display device.
	b.Run("parse-pci.ids", func(b *testing.B) {
		if _, path := new(pciDB).load("/", false); path == "" {
			b.Skip("no pci.ids on this machine")
		}
		for b.Loop() {
			var p pciDB
			if db, _ := p.load("/", true); len(db.Vendors) == 0 {
				b.Fatal("empty pci.ids")
			}
		}
	})
	b.Run("cache-hit", func(b *testing.B) {
		c := NewCache(NewDetector(Options{}))
		c.Report(ctx)
		for b.Loop() {
			c.Report(ctx)
		}
	})
}

type fileRunner string

func (f fileRunner) Output(context.Context, string, ...string) ([]byte, error) {
	return readFileOrEmpty(string(f))
}
