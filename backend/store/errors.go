package store

import "errors"

// The package's sentinel errors, compared with errors.Is.
var (
	// ErrNotFound is returned when no record has the asked id.
	ErrNotFound = errors.New("not found")
	// ErrLocked is wrapped by Open when another process holds the database.
	ErrLocked = errors.New("database is locked")
	// ErrDamaged is wrapped by every call that met a damaged page in the file.
	ErrDamaged = errors.New("database file is damaged")
	// ErrNewer is wrapped by the error for a record written by a newer rehome
	// (a schema version above the one this build knows): it is refused rather
	// than read partly, or written back without the fields this build lacks.
	ErrNewer = errors.New("written by a newer rehome")
)
