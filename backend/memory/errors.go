package memory

import "errors"

// The package's sentinel errors, compared with errors.Is.
var (
	// ErrEmpty is an add or an edit with no text.
	ErrEmpty = errors.New("a memory needs some text")
	// ErrTooLong is wrapped for a memory over MaxChars characters.
	ErrTooLong = errors.New("the memory is too long")
	// ErrFull is wrapped when MaxMemories memories are kept already.
	ErrFull = errors.New("memory is full")
	// ErrNotFound is wrapped for a memory id that is not kept.
	ErrNotFound = errors.New("no such memory")
	// ErrBadMode is a per-assistant choice other than on, off or own.
	ErrBadMode = errors.New("the memory choice is on, off or own")
	// ErrImportTooLarge is wrapped for an import over MaxImportBytes.
	ErrImportTooLarge = errors.New("the text to import is too large")
)
