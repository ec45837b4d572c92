//go:build !linux

package window

// pageOut does nothing off Linux (no MADV_PAGEOUT).
func pageOut() (int64, error) { return 0, nil }

// residentMiB is unknown off Linux.
func residentMiB() int64 { return -1 }
