package canvas

import "errors"

// The package's sentinel errors, compared with errors.Is.
var (
	// ErrNoDoc is wrapped when a textdoc id (or any textdoc) is not there.
	ErrNoDoc = errors.New("no such textdoc")
	// ErrNoMatch is wrapped when an update's pattern matches nothing.
	ErrNoMatch = errors.New("the pattern matched nothing")
	// ErrTooLarge is wrapped when a textdoc would pass MaxBytes, or a
	// conversation MaxDocs.
	ErrTooLarge = errors.New("the canvas is too large")
	// ErrBadPattern is wrapped for a pattern that does not compile.
	ErrBadPattern = errors.New("the pattern is not a regular expression rehome reads")
	// ErrNoVersion is wrapped for a version number the textdoc lacks.
	ErrNoVersion = errors.New("no such version")
)
