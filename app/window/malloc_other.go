//go:build !(desktop && linux && cgo)

package window

// mallocTrim does nothing where the window is not GTK's on Linux: no C
// allocator of the window's to trim.
func mallocTrim() {}
