package door

import "errors"

// ErrNoHolder is returned by Dial when no live process holds the data
// folder's door (no socket, or a stale one a dead process left).
var ErrNoHolder = errors.New("no rehome holds this data folder")

// ErrPeer is returned when the process on the other end of the socket
// runs as another user.
var ErrPeer = errors.New("the other end of rehome's socket runs as another user")

// ErrProtocol is returned for a frame that breaks the protocol (an unknown
// type, a frame over the size limit, a message out of turn).
var ErrProtocol = errors.New("rehome's socket: malformed message")

// RefusedError is the holder's answer, in its words, when it does not run
// a request (another version, too many commands at once).
type RefusedError struct{ Why string }

// Error is the holder's words.
func (e *RefusedError) Error() string { return e.Why }
