package actions

import "errors"

// Sentinel errors, compared with errors.Is.
var (
	// ErrSchema is wrapped by every problem with an imported schema.
	ErrSchema = errors.New("the action's schema has problems")
	// ErrRefused is wrapped when a guard refused a call (another host, a
	// redirect, a path that walks, an air-gapped machine, a request too
	// long); the call was not made or its answer not read.
	ErrRefused = errors.New("the call was refused")
	// ErrLocal is wrapped when a call would dial this machine or one of
	// its networks (loopback, private, link-local, CGNAT, metadata) and
	// the user has not allowed that for the action (LocalError).
	ErrLocal = errors.New("the action may not reach local addresses")
	// ErrNoOperation is returned for an operation name the schema lacks.
	ErrNoOperation = errors.New("no such operation")
	// ErrDeclined is returned when the user (or the lack of one) declined
	// a call that needs confirming.
	ErrDeclined = errors.New("the call was declined")
	// ErrNoCredential is returned when an action needs a key or a sign-in
	// that this machine does not have.
	ErrNoCredential = errors.New("no credential for this action")
)
