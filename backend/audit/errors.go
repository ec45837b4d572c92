package audit

import "errors"

// The package's sentinel errors, compared with errors.Is.
var (
	// ErrNeedVRAM is wrapped when an audit cannot start because the VRAM is
	// unknown: rehome says nothing encouraging before it knows the memory.
	ErrNeedVRAM = errors.New("VRAM is unknown")
)
