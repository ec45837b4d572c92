package bytesize

import "errors"

// The package's sentinel errors, compared with errors.Is.
var (
	// ErrSize is wrapped by every error Parse returns.
	ErrSize = errors.New("not a size")
)
