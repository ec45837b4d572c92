package sandbox

import "errors"

// The sandbox package's sentinel errors, compared with errors.Is. Each is
// wrapped in a message that says what happened and what to do next.
var (
	// ErrAnswerTooLarge is wrapped when a Podman service's answer is over
	// its bound (MaxAnswerBytes, MaxErrorAnswerBytes, MaxAttachFrame).
	ErrAnswerTooLarge = errors.New("the Podman service sent more than rehome reads")
	// ErrPodmanMissing is wrapped by Connect when no podman binary is
	// installed.
	ErrPodmanMissing = errors.New("podman is not installed")
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
	// ErrBadTeamHost is wrapped when a team host's address does not read
	// as ssh://user@host[:port]/path/to/podman.sock.
	ErrBadTeamHost = errors.New("not a team host address")
	// ErrHostUnknown is wrapped (by *HostKeyError) when a team host's key
	// is not in known_hosts: rehome never trusts it on its own.
	ErrHostUnknown = errors.New("unknown host key")
	// ErrHostKeyChanged is wrapped (by *HostKeyError) when a team host
	// offers another key than the one known_hosts holds for it.
	ErrHostKeyChanged = errors.New("the host key has changed")
	// ErrFingerprintMismatch is wrapped when a team host's key is not the
	// one the user said to trust.
	ErrFingerprintMismatch = errors.New("the fingerprint does not match")
	// ErrIdentity is wrapped when an ssh identity cannot be used (missing,
	// not a key, its passphrase unknown).
	ErrIdentity = errors.New("the ssh identity cannot be used")
	// ErrIdentityTooOpen is wrapped when an identity file can be read by
	// other users: ssh refuses it, and so does rehome.
	ErrIdentityTooOpen = errors.New("the ssh identity file is readable by others")
	// ErrLoginRefused is wrapped when a team host refuses every key
	// offered.
	ErrLoginRefused = errors.New("the team host refused the login")
	// ErrTeamHostUnreachable is wrapped when a team host, its sshd or its
	// Podman socket does not answer.
	ErrTeamHostUnreachable = errors.New("the team host does not answer")
	// ErrConnectionLost is wrapped (by *ConnectionLostError) when the link
	// to a team host dropped.
	ErrConnectionLost = errors.New("the connection to the team host was lost")
	// ErrInputTooBig: the input files exceed what may be sent to a
	// team host's sandbox (MaxSentBytes).
	ErrInputTooBig = errors.New("the input files are too big to send to the sandbox")

	// errNoImageAtCreate is the create of a run's container failing for
	// want of the image: Run then looks for it (loading it from its
	// archive) and creates again.
	errNoImageAtCreate = errors.New("the create found no image")

	// errInAgent: a protected identity the agent holds (its signer is used).
	errInAgent = errors.New("the ssh agent holds this key")

	// ErrImageSeccomp is wrapped when the stored sandbox image does not
	// carry rehome's seccomp profile (seccomp.go).
	ErrImageSeccomp = errors.New("the sandbox image lacks rehome's seccomp profile")

	// ErrRootfulTeamHostFiles is wrapped when input files would travel
	// to a rootful Podman service, which cannot write them into the
	// sandbox's user namespace (send.go).
	ErrRootfulTeamHostFiles = errors.New("a rootful team host cannot take input files")
)
