package hardware

import "strings"

// vendorInfo is what rehome knows about a PCI vendor without pci.ids.
type vendorInfo struct {
	name string
	// compute is true for vendors whose GPUs local model runtimes
	// (llama.cpp, Ollama, vLLM, MLX) run on.
	compute bool
}

// vendors is the built-in table used when pci.ids is missing, and for the
// short vendor name shown in the UI either way.
var vendors = map[string]vendorInfo{
	"10de": {"NVIDIA", true},
	"1002": {"AMD", true},
	"1022": {"AMD", true},
	"8086": {"Intel", true},
	"106b": {"Apple", true},
	"1a03": {"ASPEED", false},
	"102b": {"Matrox", false},
	"1234": {"QEMU", false},
	"1b36": {"Red Hat (QEMU)", false},
	"1af4": {"Red Hat (virtio)", false},
	"15ad": {"VMware", false},
	"1414": {"Microsoft (Hyper-V)", false},
	"80ee": {"VirtualBox", false},
	"1013": {"Cirrus Logic", false},
	"5143": {"Qualcomm", false},
	"13b5": {"Arm", false},
	"19e5": {"Huawei", false},
}

// vendorName returns the short name for a PCI vendor id, falling back to
// the pci.ids name, then to the bare id.
func vendorName(id, fromDB string) string {
	if v, ok := vendors[id]; ok {
		return v.name
	}
	if fromDB != "" && fromDB != "unknown" {
		return fromDB
	}
	return "vendor 0x" + id
}

// isComputeVendor reports whether GPUs of this vendor run models.
func isComputeVendor(id string) bool { return vendors[id].compute }

// pciClassName names the display subclasses (class 0x03) when pci.ids does
// not, as lspci does.
func pciClassName(subclass, fromDB string) string {
	if fromDB != "" && fromDB != "unknown" {
		return fromDB
	}
	switch subclass {
	case "00":
		return "VGA compatible controller"
	case "01":
		return "XGA compatible controller"
	case "02":
		return "3D controller"
	}
	return "Display controller"
}

// intelDiscrete reports whether an Intel GPU product id is an Arc discrete
// card (DG1, Alchemist, Battlemage) with its own memory, rather than an
// integrated GPU sharing system RAM.
func intelDiscrete(productID string) bool {
	p := strings.ToLower(productID)
	switch {
	case p == "4905" || p == "4907" || p == "4908": // DG1
		return true
	case p >= "5690" && p <= "56cf": // DG2 Alchemist, Arc Pro A
		return true
	case p >= "e202" && p <= "e22f": // BMG Battlemage, Arc B580/B570, Arc Pro B
		return true
	}
	return false
}

// nvidiaUnified lists NVIDIA products whose GPU shares the CPU's memory:
// the GB10 of the DGX Spark (nvidia-smi answers [N/A] for its memory).
var nvidiaUnified = map[string]string{
	"2e12": "NVIDIA GB10",
}

// pciIDsHint tells the user how to get full device names offline.
const pciIDsHint = "No pci.ids database on this machine, so devices are named from rehome's built-in vendor table. " +
	"For full product names install it from your distribution: `sudo apt-get install pci.ids` (Debian/Ubuntu), " +
	"`sudo dnf install hwdata` (Fedora) or `sudo pacman -S hwdata` (Arch). rehome never downloads it."
