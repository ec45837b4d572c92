package core

import (
	"errors"

	"rehome/backend/store"
	"rehome/sandbox"
	"rehome/sandbox/link"
)

// The core's sentinel errors, compared with errors.Is. Its typed errors
// (*LimitsError, *UnnamedModelError) live beside the service that returns
// them.
var (
	// ErrNotKept is wrapped by Run's error when the run happened but its
	// record could not be stored: the result is returned all the same.
	ErrNotKept = errors.New("the run's record could not be stored")
	// ErrNoQuestion is an ask with nothing to ask.
	ErrNoQuestion = errors.New("type a question first")
	// ErrModelSettings is a model setting out of its range.
	ErrModelSettings = errors.New("that model setting cannot be kept")
	// ErrNotInAnswer is a block to run that the answer does not hold.
	ErrNotInAnswer = errors.New("that code is not a python block of the answer")
	// ErrNoAction is returned for an action name the assistant lacks.
	ErrNoAction = errors.New("no such action")
	// ErrUploadStore is wrapped by KeepUpload when the data folder could
	// not take an upload (its folder or file could not be made): the
	// machine's fault, not the file's.
	ErrUploadStore = errors.New("cannot store the upload")

	// ErrNoOllama is wrapped when a pull is asked for and no Ollama server
	// answers: the error names the file to carry instead.
	ErrNoOllama = errors.New("no Ollama server runs on this machine")

	// ErrBundleKnowledge is an import of a bundle with knowledge files
	// given beside it: a bundle brings its own.
	ErrBundleKnowledge = errors.New("a bundle brings its own knowledge files: attach files only to a JSON import")

	// ErrPulling is wrapped when the same model is being pulled already.
	ErrPulling = errors.New("that model is being pulled already")
	// ErrMCPNoFile is a resource an MCP client asked for that is not one
	// of the assistant's knowledge files.
	ErrMCPNoFile = errors.New("no such knowledge file")
	// ErrMCPUpload is a file an MCP client sent that is refused.
	ErrMCPUpload = errors.New("the file sent is refused")

	// ErrNothingToBrowse is browsing asked for (--browse) with no library
	// carried and no search engine set.
	ErrNothingToBrowse = errors.New("nothing to browse")

	// ErrCanvasNotPython is wrapped when a textdoc asked to run is not
	// Python code (only code/python runs in the sandbox session).
	ErrCanvasNotPython = errors.New("only a code/python textdoc runs in the sandbox session")
)

// The domain's sentinels a face tells apart, the very values (errors.Is
// matches either name).
var (
	// ErrNotFound is a record that is not stored (store.ErrNotFound).
	ErrNotFound = store.ErrNotFound
	// ErrLocked is the database held by another rehome (store.ErrLocked).
	ErrLocked = store.ErrLocked
	// ErrTooManySessions: the data folder's sessions are at their bound.
	ErrTooManySessions = sandbox.ErrTooManySessions
	// ErrImageMissing: the sandbox image is not installed.
	ErrImageMissing = sandbox.ErrImageMissing
	// ErrPodmanMissing: podman is not installed.
	ErrPodmanMissing = link.ErrPodmanMissing
)
