// Package hardware detects what a machine can run models on: the CPU, system
// RAM and every GPU with its VRAM, and says where each figure came from.
//
// Devices are enumerated with ghw (PCI display controllers and DRM graphics
// cards). ghw reports no VRAM, so each vendor's own source fills it in:
// NVML or nvidia-smi for NVIDIA, amdgpu sysfs for AMD, and a share of system
// RAM for integrated (unified memory) GPUs. Every sysfs and procfs read goes
// through a root directory (GHW_CHROOT, as in ghw), so fixture trees of real
// machines stand in for the running one in tests. Nothing is fetched from the
// network: without a local pci.ids the vendor still gets named from a small
// built-in table.
package hardware
