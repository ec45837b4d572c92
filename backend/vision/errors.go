package vision

import "errors"

// The package's sentinel errors, compared with errors.Is.
var (
	// ErrNotImage is wrapped for a file that is not a PNG, JPEG, WebP or GIF.
	ErrNotImage = errors.New("not an image rehome reads")
	// ErrTooLarge is wrapped for a file over MaxFileBytes, or an image
	// whose header claims more than MaxSide or MaxPixels.
	ErrTooLarge = errors.New("the image is too large")
	// ErrDamaged is wrapped for an image whose header reads but whose
	// pixels do not decode.
	ErrDamaged = errors.New("the image is damaged")
)
