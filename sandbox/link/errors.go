package link

import "errors"

// The link package's sentinel errors, compared with errors.Is. Each is
// wrapped in a message that says what happened and what to do next.
var (
	// ErrAnswerTooLarge is wrapped when a Podman service's answer is over
	// its bound (MaxAnswerBytes, MaxErrorAnswerBytes, MaxAttachFrame).
	ErrAnswerTooLarge = errors.New("the Podman service sent more than rehome reads")
	// ErrPodmanMissing is wrapped by Connect when no podman binary is
	// installed.
	ErrPodmanMissing = errors.New("podman is not installed")
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
	// errLoginRefused is wrapped when a team host refuses every key
	// offered.
	errLoginRefused = errors.New("the team host refused the login")
	// errTeamHostUnreachable is wrapped when a team host, its sshd or its
	// Podman socket does not answer.
	errTeamHostUnreachable = errors.New("the team host does not answer")
	// ErrConnectionLost is wrapped (by *ConnectionLostError) when the link
	// to a team host dropped.
	ErrConnectionLost = errors.New("the connection to the team host was lost")
	// errInAgent: a protected identity the agent holds (its signer is used).
	errInAgent = errors.New("the ssh agent holds this key")
)
