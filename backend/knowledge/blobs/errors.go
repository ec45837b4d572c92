package blobs

import "errors"

// The package's sentinel errors, compared with errors.Is.
var (
	// ErrTooLarge is wrapped when a file is over the store's size limit.
	ErrTooLarge = errors.New("over the size limit")
)
