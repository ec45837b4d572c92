package hardware

import "time"

// Where a VRAM figure came from, from most to least certain.
const (
	SourceNVML       = "nvml"         // NVIDIA Management Library, read at run time
	SourceNvidiaSMI  = "nvidia-smi"   // nvidia-smi --query-gpu, parsed
	SourceAMDGPU     = "amdgpu sysfs" // device/mem_info_vram_total and mem_info_vram_used
	SourceUnified    = "unified"      // an integrated GPU sharing system RAM
	SourceUnknown    = "unknown"      // the vendor exposes nothing we can read
	sourceProcCPU    = "/proc/cpuinfo"
	sourceProcMemory = "/proc/meminfo"
)

// Report is one detection of the machine. Every size is in bytes.
type Report struct {
	CPU    CPU    `json:"cpu"`
	Memory Memory `json:"memory"`
	// GPUs lists every GPU a local model runtime can use (NVIDIA, AMD,
	// Intel, Apple), in PCI address order. Empty, never null, without one.
	GPUs []GPU `json:"gpus"`
	// OtherDisplays lists display adapters no runtime computes on: virtual
	// VGA in a VM, a server's BMC graphics (ASPEED, Matrox).
	OtherDisplays []GPU `json:"other_displays"`
	// CPUOnly is true when GPUs is empty: models run from system RAM.
	CPUOnly bool `json:"cpu_only"`
	// Notes says, in the user's words, what could not be measured and what
	// to do about it.
	Notes []string `json:"notes"`
	// PCIIDs is the pci.ids file names came from, "" when there is none.
	PCIIDs string `json:"pci_ids"`
	// Root is the filesystem root that was read ("/" on a real machine).
	Root       string    `json:"root"`
	DetectedAt time.Time `json:"detected_at"`
	DurationMS float64   `json:"duration_ms"`
}

// CPU describes the processors, from /proc/cpuinfo.
type CPU struct {
	Model   string `json:"model"`
	Vendor  string `json:"vendor"`
	Arch    string `json:"arch"`
	Sockets int    `json:"sockets"`
	Cores   int    `json:"cores"`
	Threads int    `json:"threads"`
	// Features lists the instruction set extensions that matter for CPU
	// inference (avx2, avx512f, amx_tile, asimddp, sve, i8mm...).
	Features []string `json:"features"`
	Source   string   `json:"source"`
}

// Memory is system RAM, from /proc/meminfo.
type Memory struct {
	TotalBytes     uint64 `json:"total_bytes"`
	AvailableBytes uint64 `json:"available_bytes"`
	Source         string `json:"source"`
}

// GPU is one graphics or compute device and its memory.
type GPU struct {
	Index      int    `json:"index"`
	Vendor     string `json:"vendor"`    // short name: NVIDIA, AMD, Intel, Apple
	VendorID   string `json:"vendor_id"` // PCI vendor id, 4 hex digits
	Product    string `json:"product"`
	ProductID  string `json:"product_id"`
	PCIAddress string `json:"pci_address"` // domain:bus:device.function
	Class      string `json:"class"`       // "VGA compatible controller", "3D controller"
	Driver     string `json:"driver"`
	DRMCard    string `json:"drm_card,omitempty"` // "card0" when the kernel made one
	// VRAMTotalBytes is the memory a model can be loaded into; for a
	// unified GPU, the share of system RAM the GPU driver lets it use.
	VRAMTotalBytes uint64 `json:"vram_total_bytes"`
	VRAMFreeBytes  uint64 `json:"vram_free_bytes"`
	VRAMFreeKnown  bool   `json:"vram_free_known"`
	// Unified is true when the memory is shared with the CPU.
	Unified bool `json:"unified"`
	// VRAMSource is one of the Source constants.
	VRAMSource string `json:"vram_source"`
	// VRAMDetail says in words how the figure was obtained.
	VRAMDetail    string   `json:"vram_detail"`
	DriverVersion string   `json:"driver_version,omitempty"`
	Notes         []string `json:"notes,omitempty"`
}

// VRAMKnown reports whether the total is a real figure.
func (g GPU) VRAMKnown() bool { return g.VRAMSource != SourceUnknown && g.VRAMTotalBytes > 0 }

// TotalVRAM is the memory of the GPUs a runtime would split a model across:
// the dedicated GPUs when there are any (integrated ones left out, as a
// runtime does), else the largest unified one. It also reports whether that
// memory is unified and how many GPUs count.
func (r Report) TotalVRAM() (bytes uint64, unified bool, count int) {
	for _, g := range r.GPUs {
		if !g.Unified && g.VRAMKnown() {
			bytes += g.VRAMTotalBytes
			count++
		}
	}
	if count > 0 {
		return bytes, false, count
	}
	for _, g := range r.GPUs {
		if g.Unified && g.VRAMTotalBytes > bytes {
			bytes, unified, count = g.VRAMTotalBytes, true, 1
		}
	}
	return bytes, unified, count
}
