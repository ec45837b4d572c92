package dataset

import "errors"

// The package's sentinel errors, compared with errors.Is.
var (
	// ErrNotFile is wrapped when the path is not a regular file.
	ErrNotFile = errors.New("not a regular file")
	// errShort is a Parquet footer that ends in the middle of a value.
	errShort = errors.New("unexpected end of metadata")
)
