package core

import "errors"

// The core's sentinel errors, compared with errors.Is. Its typed errors
// (*LimitsError, *UnnamedModelError) live beside the service that returns
// them.
var (
	// ErrNotKept is wrapped by Run's error when the run happened but its
	// record could not be stored: the result is returned all the same.
	ErrNotKept = errors.New("the run's record could not be stored")
	// ErrNoQuestion is an ask with nothing to ask.
	ErrNoQuestion = errors.New("type a question first")
	// ErrNoAction is returned for an action name the assistant lacks.
	ErrNoAction = errors.New("no such action")
)
