package llamarun

import "errors"

// ErrNoRuntime is returned when no llama-server build is installed.
var ErrNoRuntime = errors.New("no llama-server runtime is installed")

// ErrNoFit is returned when the model does not fit this machine's memory.
var ErrNoFit = errors.New("the model does not fit this machine's memory")

// ErrExited wraps the reason a server ended before it was healthy.
var ErrExited = errors.New("the model server stopped")

// ErrBusy is returned when another model is answering.
var ErrBusy = errors.New("another carried model is answering")
