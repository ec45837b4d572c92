//go:build !(desktop && linux && webkit2_41)

package window

// clipboardImage reads nothing where the window is not WebKitGTK 4.1:
// there the page's own paste event carries the image.
func clipboardImage(int) ([]byte, error) { return nil, nil }
