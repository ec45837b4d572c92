package chatgptexport

import "errors"

// The package's sentinel errors, compared with errors.Is.
var (
	// ErrNotExport is a file that is not ChatGPT's data export.
	ErrNotExport = errors.New("this is not ChatGPT's data export")
	// ErrTooBig is an export, an entry or a conversation over its bound.
	ErrTooBig = errors.New("over the bound rehome reads")
	// ErrUnsafeZip is a zip that is not safe to read (an entry that climbs
	// out of its folder, a zip bomb).
	ErrUnsafeZip = errors.New("the zip is not safe to read")
	// ErrBadConversation is one conversation that cannot be read (a loop
	// in its tree, too deep, no messages); the others are read on.
	ErrBadConversation = errors.New("the conversation cannot be read")

	// errConvBound is wrapped with ErrTooBig by the reader when one
	// conversation passes its bound (Next then names that conversation).
	errConvBound = errors.New("one conversation's bound")
)
