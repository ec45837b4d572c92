//go:build linux && cgo

package hardware

import (
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// queryNVML asks the NVIDIA Management Library about every GPU. The library
// (libnvidia-ml.so.1, installed with the driver) is opened at run time with
// dlopen, so rehome starts and runs on machines without it; then this
// returns an error and detection falls back to nvidia-smi.
func queryNVML() (gpus []nvidiaGPU, err error) {
	defer func() {
		if r := recover(); r != nil {
			gpus, err = nil, fmt.Errorf("NVML failed: %v", r)
		}
	}()
	lib := nvml.New()
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("NVML: %s", ret.Error())
	}
	defer lib.Shutdown()
	driver, _ := lib.SystemGetDriverVersion()
	n, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return nil, fmt.Errorf("NVML device count: %s", ret.Error())
	}
	for i := 0; i < n; i++ {
		dev, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			continue
		}
		g := nvidiaGPU{index: i, driver: driver, source: SourceNVML}
		if pi, ret := dev.GetPciInfo(); ret == nvml.SUCCESS {
			g.busID = normalizePCIAddress(cString(pi.BusId[:]))
		}
		if name, ret := dev.GetName(); ret == nvml.SUCCESS {
			g.name = name
		}
		mem, ret := dev.GetMemoryInfo()
		if ret == nvml.SUCCESS && mem.Total > 0 {
			g.total, g.free, g.used = int64(mem.Total), int64(mem.Free), int64(mem.Used)
			g.totalKnown, g.freeKnown = true, true
		} else {
			g.raw = "NVML memory info: " + ret.Error()
		}
		gpus = append(gpus, g)
	}
	return gpus, nil
}

func cString(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}
