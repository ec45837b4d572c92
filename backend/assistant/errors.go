package assistant

import "errors"

// The package's sentinel errors, compared with errors.Is.
var (
	// ErrInvalid is wrapped by every validation error.
	ErrInvalid = errors.New("invalid assistant")
	// ErrBadBundle is wrapped by every error about a bundle's contents.
	ErrBadBundle = errors.New("not a valid rehome bundle")
	// ErrNoModel is an export that names no local model to run on; each face
	// says how to name one (the CLI its --model flag, the UI its field).
	ErrNoModel = errors.New("choose the local model it runs on, such as qwen2.5:7b")
	// ErrKnowledgeTooLarge is wrapped when a knowledge file is over
	// MaxKnowledgeBytes (ChatGPT's per-file limit).
	ErrKnowledgeTooLarge = errors.New("over 512 MiB, the most a knowledge file may hold")
	// ErrNotOwnCopy is wrapped when an assistant's knowledge names a file that
	// is not rehome's own copy and no face attached it.
	ErrNotOwnCopy = errors.New("not rehome's own copy of the knowledge file")
	// ErrNotOwnFolder is a library folder that is not a real folder (a
	// link, which could name any folder on this machine).
	ErrNotOwnFolder = errors.New("not a folder of rehome's knowledge library (a link or a file)")
)
