package hardware

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rehome/backend/bytesize"
)

const gib = 1 << 30

// recorded answers nvidia-smi with the output recorded on the fixture
// machine, and checks it was asked exactly the recorded question.
type recorded struct {
	t     *testing.T
	out   []byte
	err   error
	calls int
}

func (r *recorded) Output(_ context.Context, _ string, args ...string) ([]byte, error) {
	r.calls++
	if !slices.Equal(args, NvidiaSMIArgs) {
		r.t.Errorf("nvidia-smi asked %q, fixtures record the answer to %q", args, NvidiaSMIArgs)
	}
	return r.out, r.err
}

// fixture returns a Detector over testdata/<name>, answering nvidia-smi
// from testdata/<name>/nvidia-smi.txt when the machine has one.
func fixture(t *testing.T, name string) (*Detector, *recorded) {
	t.Helper()
	root := filepath.Join("testdata", name)
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	rec := &recorded{t: t}
	opts := Options{Root: root, Runner: rec}
	if out, err := os.ReadFile(filepath.Join(root, "nvidia-smi.txt")); err == nil {
		rec.out = out
		opts.NvidiaSMI = "nvidia-smi"
	}
	d := NewDetector(opts)
	d.queryNVML = func() ([]nvidiaGPU, error) {
		t.Error("NVML was queried for a fixture root; it must only ask the running machine")
		return nil, errors.New("not here")
	}
	return d, rec
}

func detect(t *testing.T, d *Detector) Report {
	t.Helper()
	r, err := d.Detect(context.Background())
	if err != nil {
		t.Fatalf("Detect: %v", err)
	}
	return r
}

func hasNote(notes []string, sub string) bool {
	for _, n := range notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

type wantGPU struct {
	vendor, product, addr, class, driver, drm string
	total, free                               uint64
	freeKnown, unified                        bool
	source                                    string
}

func TestFixtureMachines(t *testing.T) {
	tests := []struct {
		machine        string
		cpuModel       string
		arch           string
		cores, threads int
		ramTotal       uint64
		ramAvail       uint64
		pciIDs         bool
		gpus           []wantGPU
		others         []wantGPU
		notes          []string
		smiCalls       int
	}{
		{
			machine:  "nvidia-rtx3090",
			cpuModel: "AMD Ryzen 9 5900X 12-Core Processor", arch: "x86_64", cores: 12, threads: 24,
			ramTotal: 65759632 * 1024, ramAvail: 60211840 * 1024, pciIDs: true,
			gpus: []wantGPU{{
				vendor: "NVIDIA", product: "NVIDIA GeForce RTX 3090", addr: "0000:0b:00.0",
				class: "VGA compatible controller", driver: "nvidia", drm: "card0",
				total: 24576 * mib, free: 23141 * mib, freeKnown: true, source: SourceNvidiaSMI,
			}},
			smiCalls: 1,
		},
		{
			machine:  "nvidia-2x-l4",
			cpuModel: "Intel(R) Xeon(R) Silver 4310 CPU @ 2.10GHz", arch: "x86_64", cores: 12, threads: 24,
			ramTotal: 263784364 * 1024, ramAvail: 248123456 * 1024,
			gpus: []wantGPU{
				{vendor: "NVIDIA", product: "NVIDIA L4", addr: "0000:17:00.0", class: "3D controller", driver: "nvidia",
					total: 23034 * mib, free: 22563 * mib, freeKnown: true, source: SourceNvidiaSMI},
				{vendor: "NVIDIA", product: "NVIDIA L4", addr: "0000:65:00.0", class: "3D controller", driver: "nvidia",
					total: 23034 * mib, free: 5155 * mib, freeKnown: true, source: SourceNvidiaSMI},
			},
			others: []wantGPU{{vendor: "ASPEED", product: "ASPEED device 0x2000", addr: "0000:03:00.0",
				class: "VGA compatible controller", driver: "ast", drm: "card0", source: SourceUnknown}},
			notes:    []string{"No pci.ids database", "apt-get install pci.ids"},
			smiCalls: 1,
		},
		{
			machine:  "amd-rx7900xtx",
			cpuModel: "AMD Ryzen 9 5950X 16-Core Processor", arch: "x86_64", cores: 16, threads: 32,
			ramTotal: 65744428 * 1024, ramAvail: 58234568 * 1024, pciIDs: true,
			gpus: []wantGPU{{
				vendor: "AMD", product: "Navi 31 [Radeon RX 7900 XT/7900 XTX]", addr: "0000:03:00.0",
				class: "VGA compatible controller", driver: "amdgpu", drm: "card1",
				total: 25753026560, free: 25753026560 - 1077526528, freeKnown: true, source: SourceAMDGPU,
			}},
		},
		{
			machine:  "intel-igpu-laptop",
			cpuModel: "12th Gen Intel(R) Core(TM) i7-1270P", arch: "x86_64", cores: 12, threads: 16,
			ramTotal: 32542668 * 1024, ramAvail: 23101772 * 1024, pciIDs: true,
			gpus: []wantGPU{{
				vendor: "Intel", product: "Alder Lake-P Integrated Graphics Controller", addr: "0000:00:02.0",
				class: "VGA compatible controller", driver: "i915",
				total: 32542668 * 1024 / 4 * 3, free: 23101772 * 1024, freeKnown: true, unified: true, source: SourceUnified,
			}},
		},
		{
			machine:  "vm-nodrm",
			cpuModel: "AMD EPYC", arch: "x86_64", cores: 2, threads: 2,
			ramTotal: 24683620 * 1024, ramAvail: 24188904 * 1024, pciIDs: true,
			notes: []string{"CPU only", "virtual machine or container"},
		},
		{
			machine:  "nvidia-gb10-na",
			cpuModel: "10× Cortex-A725 + 10× Cortex-X925", arch: "arm64", cores: 20, threads: 20,
			ramTotal: 127598748 * 1024, ramAvail: 119876543 * 1024, pciIDs: true,
			gpus: []wantGPU{{
				vendor: "NVIDIA", product: "NVIDIA GB10", addr: "000f:01:00.0",
				class: "VGA compatible controller", driver: "nvidia", drm: "card0",
				total: 127598748 * 1024, free: 119876543 * 1024, freeKnown: true, unified: true, source: SourceUnified,
			}},
			smiCalls: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.machine, func(t *testing.T) {
			d, rec := fixture(t, tc.machine)
			r := detect(t, d)
			if r.CPU.Model != tc.cpuModel || r.CPU.Arch != tc.arch || r.CPU.Cores != tc.cores || r.CPU.Threads != tc.threads {
				t.Errorf("CPU = %q %s %d cores %d threads, want %q %s %d/%d", r.CPU.Model, r.CPU.Arch, r.CPU.Cores, r.CPU.Threads, tc.cpuModel, tc.arch, tc.cores, tc.threads)
			}
			if r.Memory.TotalBytes != tc.ramTotal || r.Memory.AvailableBytes != tc.ramAvail {
				t.Errorf("RAM = %d total %d available, want %d and %d", r.Memory.TotalBytes, r.Memory.AvailableBytes, tc.ramTotal, tc.ramAvail)
			}
			if (r.PCIIDs != "") != tc.pciIDs {
				t.Errorf("PCIIDs = %q, want present=%v", r.PCIIDs, tc.pciIDs)
			}
			if r.GPUs == nil || r.OtherDisplays == nil || r.Notes == nil {
				t.Errorf("lists must be empty, not null, in JSON: %+v", r)
			}
			if r.CPUOnly != (len(tc.gpus) == 0) {
				t.Errorf("CPUOnly = %v with %d GPUs", r.CPUOnly, len(tc.gpus))
			}
			checkGPUs(t, "GPU", r.GPUs, tc.gpus)
			checkGPUs(t, "other display", r.OtherDisplays, tc.others)
			for _, n := range tc.notes {
				if !hasNote(r.Notes, n) {
					t.Errorf("no note mentions %q: %q", n, r.Notes)
				}
			}
			if rec.calls != tc.smiCalls {
				t.Errorf("nvidia-smi ran %d times, want %d", rec.calls, tc.smiCalls)
			}
			if r.DurationMS <= 0 || r.DetectedAt.IsZero() {
				t.Errorf("timing not recorded: %v ms at %v", r.DurationMS, r.DetectedAt)
			}
		})
	}
}

func checkGPUs(t *testing.T, what string, got []GPU, want []wantGPU) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d %ss, want %d: %+v", len(got), what, len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Index != i || g.Vendor != w.vendor || g.Product != w.product || g.PCIAddress != w.addr || g.Class != w.class || g.Driver != w.driver || g.DRMCard != w.drm {
			t.Errorf("%s %d = %d %q %q %s %q %q %q,\nwant %d %q %q %s %q %q %q", what, i, g.Index, g.Vendor, g.Product, g.PCIAddress, g.Class, g.Driver, g.DRMCard,
				i, w.vendor, w.product, w.addr, w.class, w.driver, w.drm)
		}
		if g.VRAMTotalBytes != w.total || g.VRAMFreeBytes != w.free || g.VRAMFreeKnown != w.freeKnown || g.Unified != w.unified || g.VRAMSource != w.source {
			t.Errorf("%s %d VRAM = %d total %d free (known %v) unified=%v from %q,\nwant %d total %d free (known %v) unified=%v from %q",
				what, i, g.VRAMTotalBytes, g.VRAMFreeBytes, g.VRAMFreeKnown, g.Unified, g.VRAMSource, w.total, w.free, w.freeKnown, w.unified, w.source)
		}
		if g.VRAMDetail == "" {
			t.Errorf("%s %d has no VRAM detail for the UI", what, i)
		}
	}
}

func TestGB10SaysWhyItFellBack(t *testing.T) {
	d, _ := fixture(t, "nvidia-gb10-na")
	g := detect(t, d).GPUs[0]
	if !hasNote(g.Notes, "[N/A]") || !hasNote(g.Notes, "/proc/meminfo") {
		t.Errorf("GB10 notes do not explain the [N/A] fallback: %q", g.Notes)
	}
	if !strings.Contains(g.VRAMDetail, "unified") || g.DriverVersion != "580.126.09" {
		t.Errorf("detail %q driver %q", g.VRAMDetail, g.DriverVersion)
	}
}

// A discrete card whose nvidia-smi answers [N/A] for memory gets an unknown
// VRAM and says so, rather than a made-up figure.
func TestNvidiaSMINotAvailableOnDiscreteCard(t *testing.T) {
	d, rec := fixture(t, "nvidia-rtx3090")
	rec.out = []byte("0, 00000000:0B:00.0, NVIDIA GeForce RTX 3090, [N/A], [N/A], [N/A], 550.120\n")
	r := detect(t, d)
	g := r.GPUs[0]
	if g.VRAMSource != SourceUnknown || g.VRAMTotalBytes != 0 || g.Unified {
		t.Errorf("VRAM %d from %s unified=%v, want unknown", g.VRAMTotalBytes, g.VRAMSource, g.Unified)
	}
	if !hasNote(g.Notes, "[N/A]") || !strings.Contains(g.VRAMDetail, "memory.total=[N/A]") {
		t.Errorf("notes %q detail %q do not say nvidia-smi answered [N/A]", g.Notes, g.VRAMDetail)
	}
	if !hasNote(r.Notes, "--vram") {
		t.Errorf("report notes do not say how to enter VRAM by hand: %q", r.Notes)
	}
	if g.Product != "NVIDIA GeForce RTX 3090" || r.CPUOnly {
		t.Errorf("product %q CPUOnly %v", g.Product, r.CPUOnly)
	}
	if tv, _, n := r.TotalVRAM(); tv != 0 || n != 0 {
		t.Errorf("TotalVRAM counted an unknown card: %d from %d", tv, n)
	}
}

// Free memory [N/A] with a known total keeps the total and marks free unknown.
func TestNvidiaSMIFreeNotAvailable(t *testing.T) {
	d, rec := fixture(t, "nvidia-rtx3090")
	rec.out = []byte("0, 00000000:0B:00.0, NVIDIA GeForce RTX 3090, 24576, [N/A], [N/A], 550.120\n")
	g := detect(t, d).GPUs[0]
	if g.VRAMTotalBytes != 24576*mib || g.VRAMFreeKnown || g.VRAMSource != SourceNvidiaSMI || !hasNote(g.Notes, "free memory") {
		t.Errorf("got %+v", g)
	}
}

func TestNvidiaDriverMissing(t *testing.T) {
	d, rec := fixture(t, "nvidia-rtx3090")
	rec.out = []byte("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n\n")
	rec.err = errors.New("exit status 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver")
	r := detect(t, d)
	g := r.GPUs[0]
	if g.VRAMSource != SourceUnknown || g.Product != "GA102 [GeForce RTX 3090]" {
		t.Errorf("VRAM from %q product %q", g.VRAMSource, g.Product)
	}
	if !hasNote(g.Notes, "couldn't communicate") || !hasNote(g.Notes, "apt-get install nvidia-driver") {
		t.Errorf("notes do not carry the driver error and the fix: %q", g.Notes)
	}
}

func TestNoNvidiaSMIForFixtureRootWithoutOne(t *testing.T) {
	d := NewDetector(Options{Root: filepath.Join("testdata", "nvidia-rtx3090")})
	if d.nvidiaSMI != "" || d.nvml {
		t.Fatalf("a fixture root would run the host's NVIDIA tools: smi=%q nvml=%v", d.nvidiaSMI, d.nvml)
	}
	g := detect(t, d).GPUs[0]
	if g.VRAMSource != SourceUnknown || !hasNote(g.Notes, "no nvidia-smi answer") {
		t.Errorf("got %+v", g)
	}
}

// NVML answers first; nvidia-smi is asked only for what NVML could not say.
func TestNVMLThenNvidiaSMI(t *testing.T) {
	d, rec := fixture(t, "nvidia-2x-l4")
	d.nvml = true
	d.queryNVML = func() ([]nvidiaGPU, error) {
		return []nvidiaGPU{
			{busID: "0000:17:00.0", name: "NVIDIA L4", total: 23034 * mib, free: 20000 * mib, totalKnown: true, freeKnown: true, driver: "535.183.01", source: SourceNVML},
			{busID: "0000:65:00.0", name: "NVIDIA L4", driver: "535.183.01", source: SourceNVML, raw: "NVML memory info: ERROR_NOT_SUPPORTED"},
		}, nil
	}
	r := detect(t, d)
	if rec.calls != 1 {
		t.Errorf("nvidia-smi ran %d times, want 1 (NVML lacked one GPU's memory)", rec.calls)
	}
	if g := r.GPUs[0]; g.VRAMSource != SourceNVML || g.VRAMFreeBytes != 20000*mib || !strings.Contains(g.VRAMDetail, "NVML") {
		t.Errorf("GPU 0 = %s %d %q, want NVML's answer", g.VRAMSource, g.VRAMFreeBytes, g.VRAMDetail)
	}
	if g := r.GPUs[1]; g.VRAMSource != SourceNvidiaSMI || g.VRAMFreeBytes != 5155*mib {
		t.Errorf("GPU 1 = %s %d, want nvidia-smi's answer", g.VRAMSource, g.VRAMFreeBytes)
	}

	// NVML complete: nvidia-smi is not run at all.
	d, rec = fixture(t, "nvidia-rtx3090")
	d.nvml = true
	d.queryNVML = func() ([]nvidiaGPU, error) {
		return []nvidiaGPU{{busID: "0000:0b:00.0", name: "NVIDIA GeForce RTX 3090", total: 24 * gib, free: 23 * gib, totalKnown: true, freeKnown: true, source: SourceNVML}}, nil
	}
	if g := detect(t, d).GPUs[0]; g.VRAMSource != SourceNVML || rec.calls != 0 {
		t.Errorf("source %s, nvidia-smi calls %d", g.VRAMSource, rec.calls)
	}
}

// GPUs seen by the NVIDIA tools but not on the PCI bus (a container with a
// hidden /sys) are still reported.
func TestNvidiaGPUWithoutPCI(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"proc/cpuinfo", "proc/meminfo"} {
		data, err := os.ReadFile(filepath.Join("testdata", "nvidia-rtx3090", f))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(root, "proc"), 0o755)
		os.WriteFile(filepath.Join(root, f), data, 0o644)
	}
	rec := &recorded{t: t, out: []byte("0, 00000000:0B:00.0, NVIDIA GeForce RTX 3090, 24576, 1125, 23141, 550.120\n")}
	d := NewDetector(Options{Root: root, NvidiaSMI: "nvidia-smi", Runner: rec})
	r := detect(t, d)
	if len(r.GPUs) != 1 || r.GPUs[0].VRAMTotalBytes != 24576*mib || !hasNote(r.GPUs[0].Notes, "PCI bus is not visible") || r.CPUOnly {
		t.Errorf("got %+v", r.GPUs)
	}
}

// GHW_CHROOT points every read at a fixture tree, as it does for ghw.
func TestGHWChrootHonoured(t *testing.T) {
	root, _ := filepath.Abs(filepath.Join("testdata", "amd-rx7900xtx"))
	t.Setenv("GHW_CHROOT", root)
	d := NewDetector(Options{})
	if d.Root() != root || d.nvml || d.nvidiaSMI != "" {
		t.Fatalf("root %q nvml %v smi %q", d.Root(), d.nvml, d.nvidiaSMI)
	}
	r := detect(t, d)
	if len(r.GPUs) != 1 || r.GPUs[0].VRAMSource != SourceAMDGPU || r.CPU.Threads != 32 || r.Root != root {
		t.Errorf("GHW_CHROOT not honoured: %+v", r)
	}
}

func TestMissingProcFilesAreNotes(t *testing.T) {
	r := detect(t, NewDetector(Options{Root: t.TempDir()}))
	if !r.CPUOnly || !hasNote(r.Notes, "/proc/cpuinfo") || !hasNote(r.Notes, "/proc/meminfo") || r.Memory.Source != SourceUnknown {
		t.Errorf("got %+v", r)
	}
}

func TestMeminfoWithoutMemAvailable(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "proc"), 0o755)
	os.WriteFile(filepath.Join(root, "proc", "meminfo"), []byte("MemTotal:        8000000 kB\nMemFree:         1000000 kB\nBuffers:          200000 kB\nCached:          3000000 kB\n"), 0o644)
	m, err := readMeminfo(root)
	if err != nil || m.TotalBytes != 8000000*1024 || m.AvailableBytes != 4200000*1024 {
		t.Errorf("got %+v, %v", m, err)
	}
}

func TestCancelledContext(t *testing.T) {
	d, _ := fixture(t, "vm-nodrm")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Detect(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestTotalVRAM(t *testing.T) {
	d, _ := fixture(t, "nvidia-2x-l4")
	if b, u, n := detect(t, d).TotalVRAM(); b != 2*23034*mib || u || n != 2 {
		t.Errorf("two L4s: %d unified=%v count=%d", b, u, n)
	}
	d, _ = fixture(t, "intel-igpu-laptop")
	if b, u, n := detect(t, d).TotalVRAM(); b != 32542668*1024/4*3 || !u || n != 1 {
		t.Errorf("iGPU: %d unified=%v count=%d", b, u, n)
	}
	d, _ = fixture(t, "vm-nodrm")
	if b, _, n := detect(t, d).TotalVRAM(); b != 0 || n != 0 {
		t.Errorf("VM: %d from %d", b, n)
	}
}

func TestNormalizePCIAddress(t *testing.T) {
	for in, want := range map[string]string{
		"00000000:0B:00.0": "0000:0b:00.0",
		"0000000F:01:00.0": "000f:01:00.0",
		"0b:00.0":          "0000:0b:00.0",
		"0000:65:00.0":     "0000:65:00.0",
	} {
		if got := normalizePCIAddress(in); got != want {
			t.Errorf("normalizePCIAddress(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseNvidiaSMIRejectsGarbage(t *testing.T) {
	if _, err := parseNvidiaSMI([]byte("No devices were found\n")); err == nil {
		t.Error("garbage parsed without error")
	}
	gs, err := parseNvidiaSMI([]byte("\n"))
	if err != nil || len(gs) != 0 {
		t.Errorf("empty answer: %v %v", gs, err)
	}
}

// On this machine there is no libnvidia-ml.so: NVML must fail cleanly.
func TestNVMLAbsentFailsGracefully(t *testing.T) {
	for _, p := range []string{"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1", "/usr/lib64/libnvidia-ml.so.1"} {
		if _, err := os.Stat(p); err == nil {
			t.Skip("NVML is installed here")
		}
	}
	gs, err := queryNVML()
	if err == nil || len(gs) != 0 {
		t.Fatalf("queryNVML without the library = %v, %v; want an error", gs, err)
	}
	t.Logf("NVML absent: %v", err)
}

// The running machine: whatever it has, detection succeeds and is
// self-consistent (on the build VM: CPU only).
func TestHostMachine(t *testing.T) {
	r := detect(t, NewDetector(Options{}))
	if r.CPU.Threads < 1 || r.Memory.TotalBytes == 0 || r.Root != "/" {
		t.Errorf("host: %+v", r)
	}
	if r.CPUOnly != (len(r.GPUs) == 0) {
		t.Errorf("CPUOnly %v with %d GPUs", r.CPUOnly, len(r.GPUs))
	}
	t.Logf("host: %s, %d cores/%d threads, %s RAM, %d GPUs, cpu_only=%v, %.1f ms",
		r.CPU.Model, r.CPU.Cores, r.CPU.Threads, bytesize.Format(int64(r.Memory.TotalBytes)), len(r.GPUs), r.CPUOnly, r.DurationMS)
}

func readFileOrEmpty(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	return data, err
}

// ghw drops the whole PCI bus when one device lacks its modalias file; the
// display devices are then read from their own files.
func TestPCIWithoutModalias(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join("testdata", "nvidia-rtx3090")
	if err := os.CopyFS(root, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "sys", "devices", "pci0000:00", "0000:00:03.1", "modalias")); err != nil {
		t.Fatal(err)
	}
	rec := &recorded{t: t, out: mustRead(t, filepath.Join(src, "nvidia-smi.txt"))}
	r := detect(t, NewDetector(Options{Root: root, NvidiaSMI: "nvidia-smi", Runner: rec}))
	if len(r.GPUs) != 1 {
		t.Fatalf("GPUs %+v", r.GPUs)
	}
	g := r.GPUs[0]
	if g.PCIAddress != "0000:0b:00.0" || g.Driver != "nvidia" || g.Class != "VGA compatible controller" || g.VRAMTotalBytes != 24576*mib {
		t.Errorf("got %+v", g)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
