package hardware

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"rehome/backend/bytesize"
)

// Options configure a Detector. The zero value detects the running machine.
type Options struct {
	// Root is the filesystem root to read /sys, /proc and pci.ids under.
	// Empty means $GHW_CHROOT, or "/" when that is unset.
	Root string
	// NvidiaSMI is the nvidia-smi program to run. Empty means
	// $REHOME_NVIDIA_SMI, else nvidia-smi from PATH, but only when Root is
	// "/": a fixture tree is never mixed with the host's GPUs.
	NvidiaSMI string
	// Runner runs nvidia-smi; nil means ExecRunner.
	Runner Runner
	// DisableNVML skips the NVIDIA Management Library. It is always skipped
	// when Root is not "/".
	DisableNVML bool
	// DisableNvidiaSMI never runs nvidia-smi.
	DisableNvidiaSMI bool
}

// Detector finds the CPU, RAM and GPUs of a machine. It is safe for
// concurrent use and keeps the parsed pci.ids between detections.
type Detector struct {
	root      string
	host      bool // root is the running machine
	nvidiaSMI string
	runner    Runner
	nvml      bool
	db        pciDB
	queryNVML func() ([]nvidiaGPU, error)
}

// NewDetector returns a Detector for opts.
func NewDetector(opts Options) *Detector {
	root := opts.Root
	if root == "" {
		root = os.Getenv("GHW_CHROOT")
	}
	if root == "" {
		root = "/"
	}
	root = filepath.Clean(root)
	d := &Detector{root: root, host: root == "/", runner: opts.Runner, queryNVML: queryNVML}
	if d.runner == nil {
		d.runner = ExecRunner{}
	}
	d.nvml = d.host && !opts.DisableNVML
	if !opts.DisableNvidiaSMI {
		switch {
		case opts.NvidiaSMI != "":
			d.nvidiaSMI = opts.NvidiaSMI
		case os.Getenv("REHOME_NVIDIA_SMI") != "":
			d.nvidiaSMI = os.Getenv("REHOME_NVIDIA_SMI")
		case d.host:
			d.nvidiaSMI = findNvidiaSMI()
		}
	}
	return d
}

// Root is the filesystem root the Detector reads.
func (d *Detector) Root() string { return d.root }

// Detect inspects the machine. Missing sources become notes in the report,
// not errors: a VM without a GPU gets a CPU-only report. The only error is
// a cancelled context.
func (d *Detector) Detect(ctx context.Context) (Report, error) {
	start := time.Now()
	r := Report{Root: d.root, GPUs: []GPU{}, OtherDisplays: []GPU{}, Notes: []string{}, DetectedAt: start.UTC()}
	d.readHost(&r)
	if err := ctx.Err(); err != nil {
		return r, err
	}

	db, dbPath := d.db.load(d.root, hasDisplayDevice(d.root))
	r.PCIIDs = dbPath
	displays, err := enumerateDisplays(d.root, db)
	if err != nil {
		r.note("Could not list PCI devices (%v).", err)
	}
	pciVisible := dirHasEntries(filepath.Join(d.root, "sys", "bus", "pci", "devices"))

	// NVIDIA's tools run only when there is NVIDIA hardware to ask about,
	// or when the PCI bus is hidden (some containers) and they may see it.
	wantNvidia := !pciVisible
	for _, ds := range displays {
		if ds.vendorID == "10de" {
			wantNvidia = true
		}
	}
	var nv nvidiaAnswers
	if wantNvidia {
		nv.byBus, nv.order, nv.problems = d.nvidia(ctx)
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	named := d.addGPUs(&r, displays, nv)
	d.summarize(&r, named)
	r.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	return r, nil
}

// note adds a note in words to the report.
func (r *Report) note(format string, a ...any) { r.Notes = append(r.Notes, fmt.Sprintf(format, a...)) }

// readHost reads the CPU and the system RAM, with a note where either
// could not be read.
func (d *Detector) readHost(r *Report) {
	cpu, err := readCPUInfo(d.root)
	if err != nil {
		r.note("Could not read the CPU from /proc/cpuinfo (%v).", err)
		cpu = CPU{Model: "unknown CPU", Features: []string{}, Source: SourceUnknown}
		if d.host {
			cpu.Threads, cpu.Cores, cpu.Sockets = runtime.NumCPU(), runtime.NumCPU(), 1
		}
	}
	if cpu.Arch == "" && d.host {
		cpu.Arch = runtime.GOARCH
	}
	r.CPU = cpu
	mem, err := readMeminfo(d.root)
	if err != nil {
		r.note("Could not read system RAM from /proc/meminfo (%v); enter it by hand to plan.", err)
		mem.Source = SourceUnknown
	}
	r.Memory = mem
}

// nvidiaAnswers are what NVIDIA's tools said: by normalized bus id, in
// their order, and what went wrong.
type nvidiaAnswers struct {
	byBus    map[string]nvidiaGPU
	order    []string
	problems []string
}

// addGPUs lists the display devices: the compute GPUs, each filled in by
// its vendor's sources, then the GPUs NVIDIA's tools see that the PCI bus
// does not show (containers); the others as other displays. named says a
// product had no name in the PCI database.
func (d *Detector) addGPUs(r *Report, displays []display, nv nvidiaAnswers) (named bool) {
	for _, ds := range displays {
		g := GPU{
			Vendor:     vendorName(ds.vendorID, ds.vendor),
			VendorID:   ds.vendorID,
			Product:    ds.product,
			ProductID:  ds.productID,
			PCIAddress: ds.address,
			Class:      ds.class,
			Driver:     ds.driver,
			DRMCard:    ds.drmCard,
			VRAMSource: SourceUnknown,
		}
		if g.Product == "" {
			g.Product = fmt.Sprintf("%s device 0x%s", g.Vendor, ds.productID)
			named = true
		}
		if !isComputeVendor(ds.vendorID) {
			g.VRAMDetail = "a virtual or management display adapter: no model runtime computes on it"
			g.Index = len(r.OtherDisplays)
			r.OtherDisplays = append(r.OtherDisplays, g)
			continue
		}
		switch ds.vendorID {
		case "10de":
			d.fillNvidia(&g, nv.byBus, nv.problems, r.Memory)
			delete(nv.byBus, g.PCIAddress)
		case "1002", "1022":
			d.fillAMD(&g)
		case "8086":
			fillIntel(&g, r.Memory)
		}
		g.Index = len(r.GPUs)
		r.GPUs = append(r.GPUs, g)
	}
	for _, bus := range nv.order {
		n, ok := nv.byBus[bus]
		if !ok {
			continue
		}
		g := GPU{Vendor: "NVIDIA", VendorID: "10de", Product: n.name, PCIAddress: bus, Class: "3D controller", Driver: "nvidia", VRAMSource: SourceUnknown}
		d.fillNvidia(&g, nv.byBus, nv.problems, r.Memory)
		g.Notes = append(g.Notes, "Seen by "+n.source+" only: the PCI bus is not visible here (a container?).")
		g.Index = len(r.GPUs)
		r.GPUs = append(r.GPUs, g)
	}
	return named
}

// summarize says what the report lacks: the PCI names, a GPU at all, a
// GPU's VRAM.
func (d *Detector) summarize(r *Report, named bool) {
	if named && r.PCIIDs == "" {
		r.note("%s", pciIDsHint)
	}
	r.CPUOnly = len(r.GPUs) == 0
	if r.CPUOnly {
		msg := "CPU only: no GPU that a model runtime can use was found, so models run on the CPU from system RAM (several times slower than on a GPU)."
		if len(r.OtherDisplays) > 0 || !dirHasEntries(filepath.Join(d.root, "sys", "class", "drm")) {
			msg += " This is what a virtual machine or container without a passed-through GPU looks like."
		}
		r.note("%s", msg)
	}
	for _, g := range r.GPUs {
		if g.VRAMSource == SourceUnknown {
			r.note("The VRAM of GPU %d (%s) is unknown: fit estimates leave it out. Enter it by hand under \"plan a purchase\" (`rehome fit --vram 24GiB`).", g.Index, g.Product)
		}
	}
}

// nvidia asks NVML, then nvidia-smi for what NVML could not say. It returns
// the answers by normalized bus id, their order, and what went wrong.
func (d *Detector) nvidia(ctx context.Context) (map[string]nvidiaGPU, []string, []string) {
	byBus := map[string]nvidiaGPU{}
	var order, problems []string
	add := func(gs []nvidiaGPU) {
		for _, g := range gs {
			old, seen := byBus[g.busID]
			if !seen {
				order = append(order, g.busID)
			}
			if !seen || (!old.totalKnown && g.totalKnown) {
				byBus[g.busID] = g
			} else if old.raw == "" {
				old.raw = g.raw
				byBus[g.busID] = old
			}
		}
	}
	complete := func() bool {
		if len(byBus) == 0 {
			return false
		}
		for _, g := range byBus {
			if !g.totalKnown {
				return false
			}
		}
		return true
	}
	if d.nvml {
		gs, err := d.queryNVML()
		if err != nil {
			problems = append(problems, err.Error())
		}
		add(gs)
	}
	if !complete() && d.nvidiaSMI != "" {
		cctx, cancel := context.WithTimeout(ctx, nvidiaSMITimeout)
		out, err := d.runner.Output(cctx, d.nvidiaSMI, NvidiaSMIArgs...)
		cancel()
		if err != nil {
			problems = append(problems, "nvidia-smi: "+err.Error())
		} else if gs, err := parseNvidiaSMI(out); err != nil {
			problems = append(problems, err.Error())
		} else {
			add(gs)
		}
	} else if !complete() && !d.host {
		problems = append(problems, "no nvidia-smi answer was given for this root")
	} else if !complete() {
		problems = append(problems, "nvidia-smi is not installed")
	}
	return byBus, order, problems
}

// fillNvidia sets the VRAM of an NVIDIA GPU from the tools' answers.
func (d *Detector) fillNvidia(g *GPU, nv map[string]nvidiaGPU, problems []string, mem Memory) {
	n, ok := nv[g.PCIAddress]
	if ok && n.name != "" {
		g.Product = n.name
	}
	if ok {
		g.DriverVersion = n.driver
	}
	unifiedName, unified := nvidiaUnified[g.ProductID]
	switch {
	case ok && n.totalKnown:
		g.VRAMTotalBytes, g.VRAMSource = n.total, n.source
		g.VRAMFreeBytes, g.VRAMFreeKnown = n.free, n.freeKnown
		g.VRAMDetail = "measured by " + sourceLabel(n.source)
		if n.driver != "" {
			g.VRAMDetail += " (driver " + n.driver + ")"
		}
		if !n.freeKnown {
			g.Notes = append(g.Notes, sourceLabel(n.source)+" did not report free memory ("+n.raw+").")
		}
	case unified || (ok && strings.Contains(strings.ToUpper(n.name), "GB10")):
		if unifiedName == "" {
			unifiedName = n.name
		}
		g.Unified, g.VRAMSource = true, SourceUnified
		g.VRAMTotalBytes = mem.TotalBytes
		g.VRAMFreeBytes, g.VRAMFreeKnown = mem.AvailableBytes, mem.TotalBytes > 0
		g.VRAMDetail = fmt.Sprintf("shared with system RAM (unified): the %s uses the machine's %s of memory", unifiedName, bytesize.Format(mem.TotalBytes))
		if ok {
			g.Notes = append(g.Notes, fmt.Sprintf("%s answered [N/A] for memory (%s), as it does on unified-memory parts; fell back to system RAM from /proc/meminfo.", sourceLabel(n.source), n.raw))
		}
	case ok:
		g.VRAMDetail = fmt.Sprintf("unknown: %s answered %s", sourceLabel(n.source), n.raw)
		g.Notes = append(g.Notes, sourceLabel(n.source)+" answered [N/A] for the memory size and the driver exposes no other source; VRAM is unknown.")
	default:
		g.VRAMDetail = "unknown: the NVIDIA driver's tools did not answer"
		why := strings.Join(problems, "; ")
		if why == "" {
			why = "no NVIDIA tool listed this GPU"
		}
		g.Notes = append(g.Notes, "VRAM unknown ("+why+"). Install the NVIDIA driver, which brings NVML and nvidia-smi: `sudo apt-get install nvidia-driver` (Debian) or `sudo ubuntu-drivers install` (Ubuntu).")
	}
}

// fillAMD reads the amdgpu driver's VRAM counters from sysfs.
func (d *Detector) fillAMD(g *GPU) {
	dev := filepath.Join(d.root, "sys", "bus", "pci", "devices", g.PCIAddress)
	total, ok := readSysfsUint(filepath.Join(dev, "mem_info_vram_total"))
	if !ok || total == 0 {
		drv := g.Driver
		if drv == "" {
			drv = "none"
		}
		g.VRAMDetail = "unknown: the amdgpu driver does not report this GPU's memory (driver: " + drv + ")"
		g.Notes = append(g.Notes, "VRAM unknown: no mem_info_vram_total in sysfs. Newer AMD GPUs report it once the amdgpu kernel driver is bound.")
		return
	}
	g.VRAMTotalBytes, g.VRAMSource = total, SourceAMDGPU
	g.VRAMDetail = "read from amdgpu sysfs (mem_info_vram_total)"
	if used, ok := readSysfsUint(filepath.Join(dev, "mem_info_vram_used")); ok && used <= total {
		g.VRAMFreeBytes, g.VRAMFreeKnown = total-used, true
	}
	if _, err := os.Stat(filepath.Join(dev, "mem_info_gtt_total")); err == nil && total < 4<<30 {
		g.Notes = append(g.Notes, "Only "+bytesize.Format(total)+" of VRAM: this is likely an integrated Radeon (APU) whose VRAM is a BIOS carve-out of system RAM; runtimes can also borrow system RAM (GTT), more slowly.")
	}
}

// fillIntel treats integrated Intel GPUs as unified memory and Arc cards as
// dedicated memory of unknown size.
func fillIntel(g *GPU, mem Memory) {
	if intelDiscrete(g.ProductID) {
		g.VRAMDetail = "unknown: Intel Arc cards have their own memory, but the driver does not report its size in sysfs"
		return
	}
	g.Unified, g.VRAMSource = true, SourceUnified
	g.VRAMTotalBytes = UnifiedShare(mem.TotalBytes)
	g.VRAMFreeBytes, g.VRAMFreeKnown = min(g.VRAMTotalBytes, mem.AvailableBytes), mem.TotalBytes > 0
	g.VRAMDetail = fmt.Sprintf("shared with system RAM (unified): the GPU driver lets it use up to %s of %s", shareText(mem.TotalBytes), bytesize.Format(mem.TotalBytes))
}

// UnifiedShare is the part of system RAM an integrated GPU may use: half of
// it up to 4 GiB and three quarters above, the default of the Mesa drivers
// (and close to what Metal allows on Apple silicon).
func UnifiedShare(ram int64) int64 {
	if ram <= 4<<30 {
		return ram / 2
	}
	return ram / 4 * 3
}

func shareText(ram int64) string {
	if ram <= 4<<30 {
		return "half"
	}
	return "3/4"
}

func sourceLabel(s string) string {
	if s == SourceNVML {
		return "NVML"
	}
	return s
}

func dirHasEntries(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	names, _ := f.Readdirnames(1)
	return len(names) > 0
}
