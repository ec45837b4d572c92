package window

import "errors"

// The package's sentinel errors, compared with errors.Is.
var (
	// errNoWindowBinary is returned when the window binary is not installed
	// (by the terminal's build: exec.go).
	//lint:ignore U1000 the window's own build (desktop) has no binary to find
	errNoWindowBinary = errors.New("the window is not installed")
	// errAlreadyRunning is a second window on a data folder another already
	// shows: the second hands its files to the first and ends.
	errAlreadyRunning = errors.New("rehome is already running on this data folder")
)
