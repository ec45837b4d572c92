package sandbox

import "errors"

// The sandbox package's sentinel errors, compared with errors.Is. Each is
// wrapped in a message that says what happened and what to do next.
var (
	// ErrImageMissing is wrapped when the sandbox image is not in Podman's
	// storage and no archive of it is cached.
	ErrImageMissing = errors.New("the sandbox image is not installed")
	// errArchiveDamaged is wrapped when an archive does not match its
	// .sha256.
	errArchiveDamaged = errors.New("the image archive is damaged")
	// ErrTooManySessions is wrapped when MaxSessions sessions of a data
	// folder run already.
	ErrTooManySessions = errors.New("too many sessions")
	// ErrSessionEnded is returned by a session whose container is gone.
	ErrSessionEnded = errors.New("the session has ended (idle, stopped, or its sandbox was killed): start a new one")
	// errInputTooBig: the input files exceed what may be sent to a
	// team host's sandbox (maxSentBytes).
	errInputTooBig = errors.New("the input files are too big to send to the sandbox")
	// errNoImageAtCreate is the create of a run's container failing for
	// want of the image: Run then looks for it (loading it from its
	// archive) and creates again.
	errNoImageAtCreate = errors.New("the create found no image")
	// errImageSeccomp is wrapped when the stored sandbox image does not
	// carry rehome's seccomp profile (seccomp.go).
	errImageSeccomp = errors.New("the sandbox image lacks rehome's seccomp profile")
	// errRootfulTeamHostFiles is wrapped when input files would travel
	// to a rootful Podman service, which cannot write them into the
	// sandbox's user namespace (send.go).
	errRootfulTeamHostFiles = errors.New("a rootful team host cannot take input files")
)
