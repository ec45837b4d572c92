package knowledge

import "errors"

// Why a file was not indexed. Each is wrapped with the file's own words;
// compare with errors.Is.
var (
	// ErrTooLarge: the file is over MaxFileBytes.
	ErrTooLarge = errors.New("over 512 MB")
	// ErrTooManyTokens: its text is over MaxFileTokens.
	ErrTooManyTokens = errors.New("over 2,000,000 tokens of text")
	// ErrEncrypted: a PDF that needs a password.
	ErrEncrypted = errors.New("encrypted PDF")
	// ErrNoText: nothing to index (a scan without a text layer, an empty file).
	ErrNoText = errors.New("no text")
	// ErrNotFormat: the bytes are not what the name says.
	ErrNotFormat = errors.New("not the format its name says")
	// ErrZipBomb: an Office file whose parts would unpack to far more than it holds.
	ErrZipBomb = errors.New("a zip bomb")
	// ErrUnsupported: a kind of file rehome does not read.
	ErrUnsupported = errors.New("a kind of file rehome cannot index")
	// ErrParse: the parser failed on the file (damaged, or it hit a limit).
	ErrParse = errors.New("could not be read")
	// ErrTooManyFiles: the assistant has MaxFiles already.
	ErrTooManyFiles = errors.New("too many files")
	// ErrNotFound: no such file in the assistant's knowledge.
	ErrNotFound = errors.New("no such knowledge file")
	// ErrAmbiguous: a file name (or sha256 prefix) that fits several files.
	ErrAmbiguous = errors.New("more than one knowledge file fits")
	// ErrNoSandbox: the file needs the sandbox to be read and it cannot start.
	ErrNoSandbox = errors.New("the sandbox is not available to read the file")
	// errOverRead is returned by readAtMost for a file over its bound
	// (never shown: the caller says which bound in words).
	errOverRead = errors.New("over the bound")
)
