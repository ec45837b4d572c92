package sandbox

import "errors"

// The sandbox package's sentinel errors, compared with errors.Is. Each is
// wrapped in a message that says what happened and what to do next.
var (
	// ErrImageMissing is wrapped when the sandbox image is not in Podman's
	// storage and no archive of it is cached.
	ErrImageMissing = errors.New("the sandbox image is not installed")
	// ErrArchiveDamaged is wrapped when an archive does not match its
	// .sha256.
	ErrArchiveDamaged = errors.New("the image archive is damaged")
	// ErrStopped is reported (in Result.Summary) when StopRun ended a run.
	ErrStopped = errors.New("stopped by the user")
	// ErrTooManySessions is wrapped when MaxSessions sessions of a data
	// folder run already.
	ErrTooManySessions = errors.New("too many sessions")
	// ErrSessionEnded is returned by a session whose container is gone.
	ErrSessionEnded = errors.New("the session has ended (idle, stopped, or its sandbox was killed): start a new one")
	// ErrInputTooBig: the input files exceed what may be sent to a
	// team host's sandbox (maxSentBytes).
	ErrInputTooBig = errors.New("the input files are too big to send to the sandbox")
	// errNoImageAtCreate is the create of a run's container failing for
	// want of the image: Run then looks for it (loading it from its
	// archive) and creates again.
	errNoImageAtCreate = errors.New("the create found no image")
	// ErrImageSeccomp is wrapped when the stored sandbox image does not
	// carry rehome's seccomp profile (seccomp.go).
	ErrImageSeccomp = errors.New("the sandbox image lacks rehome's seccomp profile")
	// ErrRootfulTeamHostFiles is wrapped when input files would travel
	// to a rootful Podman service, which cannot write them into the
	// sandbox's user namespace (send.go).
	ErrRootfulTeamHostFiles = errors.New("a rootful team host cannot take input files")
)
