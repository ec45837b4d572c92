//go:build !linux || !cgo

package hardware

import "errors"

// queryNVML is unavailable in this build (NVML needs cgo on Linux);
// detection uses nvidia-smi instead.
func queryNVML() ([]nvidiaGPU, error) {
	return nil, errors.New("NVML is not built into this binary (needs cgo on Linux)")
}
