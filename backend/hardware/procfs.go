package hardware

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// readMeminfo parses <root>/proc/meminfo. MemAvailable is used when the
// kernel provides it (3.14 and later); otherwise free + buffers + cached.
func readMeminfo(root string) (Memory, error) {
	data, err := os.ReadFile(filepath.Join(root, "proc", "meminfo"))
	if err != nil {
		return Memory{}, err
	}
	kb := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			continue
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil || n < 0 {
			continue
		}
		if len(fields) > 1 && fields[1] == "kB" {
			n *= 1024
		}
		kb[key] = n
	}
	total, ok := kb["MemTotal"]
	if !ok || total == 0 {
		return Memory{}, fmt.Errorf("no MemTotal in %s", filepath.Join(root, "proc", "meminfo"))
	}
	avail, ok := kb["MemAvailable"]
	if !ok {
		avail = kb["MemFree"] + kb["Buffers"] + kb["Cached"]
	}
	return Memory{TotalBytes: total, AvailableBytes: avail, Source: sourceProcMemory}, nil
}

// cpuFeatures are the flags that decide how fast a CPU runs a quantized
// model, in the order they are shown.
var cpuFeatures = []string{
	"avx", "avx2", "fma", "f16c", "avx512f", "avx512_vnni", "avx512_bf16", "avx_vnni", "amx_tile",
	"asimd", "asimddp", "asimdhp", "sve", "sve2", "i8mm", "bf16",
}

// armParts names the Arm cores in machines people run models on
// (implementer 0x41 is Arm Ltd, 0x61 Apple).
var armParts = map[string]string{
	"0x41/0xd08": "Cortex-A72", "0x41/0xd0b": "Cortex-A76", "0x41/0xd0c": "Neoverse-N1",
	"0x41/0xd40": "Neoverse-V1", "0x41/0xd44": "Cortex-X1", "0x41/0xd46": "Cortex-A510",
	"0x41/0xd47": "Cortex-A710", "0x41/0xd48": "Cortex-X2", "0x41/0xd49": "Neoverse-N2",
	"0x41/0xd4f": "Neoverse-V2", "0x41/0xd80": "Cortex-A520", "0x41/0xd81": "Cortex-A720",
	"0x41/0xd82": "Cortex-X4", "0x41/0xd85": "Cortex-X925", "0x41/0xd87": "Cortex-A725",
	"0x41/0xd8e": "Neoverse-N3",
}

// readCPUInfo parses <root>/proc/cpuinfo for x86 and Arm layouts.
func readCPUInfo(root string) (CPU, error) {
	data, err := os.ReadFile(filepath.Join(root, "proc", "cpuinfo"))
	if err != nil {
		return CPU{}, err
	}
	c := &cpuinfo{cpu: CPU{Source: sourceProcCPU}, cores: map[coreKey]bool{}, pkgs: map[string]bool{}, armCount: map[string]int{}, flags: map[string]bool{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			if strings.TrimSpace(line) == "" {
				c.flush()
			}
			continue
		}
		c.field(strings.TrimSpace(key), strings.TrimSpace(val))
	}
	c.flush()
	if c.cpu.Threads == 0 {
		return CPU{}, fmt.Errorf("no processor entries in %s", filepath.Join(root, "proc", "cpuinfo"))
	}
	return c.summary(), nil
}

// coreKey is a physical core: its package and its core id.
type coreKey struct{ pkg, core string }

// cpuinfo is /proc/cpuinfo as it is read: what the processor entries
// add up to, and the entry being read.
type cpuinfo struct {
	cpu                   CPU
	cores                 map[coreKey]bool
	pkgs                  map[string]bool
	armOrder              []string       // the Arm core names, in order
	armCount              map[string]int // by name
	flags                 map[string]bool
	pkg, core, impl, part string // the processor entry being read
}

// field reads one "key: value" line of a processor entry.
func (c *cpuinfo) field(key, val string) {
	switch key {
	case "processor":
		if _, err := strconv.Atoi(val); err == nil {
			c.cpu.Threads++
		}
	case "model name", "Model Name":
		if c.cpu.Model == "" {
			c.cpu.Model = val
		}
	case "vendor_id":
		c.cpu.Vendor = val
	case "physical id":
		c.pkg = val
	case "core id":
		c.core = val
	case "CPU implementer":
		c.impl = val
	case "CPU part":
		c.part = val
	case "flags", "Features":
		for _, f := range strings.Fields(val) {
			c.flags[f] = true
		}
	}
}

// flush counts the processor entry read and starts the next.
func (c *cpuinfo) flush() {
	if c.core != "" {
		c.cores[coreKey{c.pkg, c.core}] = true
	}
	if c.pkg != "" {
		c.pkgs[c.pkg] = true
	}
	if c.part != "" {
		name := armParts[c.impl+"/"+c.part]
		if name == "" {
			name = "Arm core " + c.impl + "/" + c.part
		}
		if c.armCount[name] == 0 {
			c.armOrder = append(c.armOrder, name)
		}
		c.armCount[name]++
	}
	c.pkg, c.core, c.impl, c.part = "", "", "", ""
}

// summary is the CPU the entries describe: its architecture, its name
// (an Arm machine's from its core parts), its sockets, cores and the
// features that matter.
func (c *cpuinfo) summary() CPU {
	cpu := c.cpu
	switch {
	case c.flags["asimd"] || c.impl != "" || len(c.armOrder) > 0:
		cpu.Arch = "arm64"
	case c.flags["lm"]:
		cpu.Arch = "x86_64"
	}
	if cpu.Model == "" && len(c.armOrder) > 0 {
		parts := make([]string, len(c.armOrder))
		for i, n := range c.armOrder {
			parts[i] = fmt.Sprintf("%d× %s", c.armCount[n], n)
		}
		cpu.Model = strings.Join(parts, " + ")
		cpu.Vendor = "Arm"
	}
	if cpu.Model == "" {
		cpu.Model = "unknown CPU"
	}
	cpu.Sockets = max(len(c.pkgs), 1)
	cpu.Cores = len(c.cores)
	if cpu.Cores == 0 {
		cpu.Cores = cpu.Threads // Arm and most VMs: one thread per core
	}
	cpu.Features = []string{}
	for _, f := range cpuFeatures {
		if c.flags[f] {
			cpu.Features = append(cpu.Features, f)
		}
	}
	return cpu
}
