//go:build !(desktop && linux && webkit2_41)

package window

// keepGLOutOfUI does nothing where the window is not WebKitGTK 4.1.
func keepGLOutOfUI() error { return nil }
