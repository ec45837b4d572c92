package browse

import "errors"

// Sentinel errors, compared with errors.Is.
var (
	// ErrNotZIM: the file is not a ZIM archive (its magic number is not
	// ZIM's).
	ErrNotZIM = errors.New("not a ZIM file")
	// ErrZIMCut: the file ends before its checksum (a copy that stopped).
	ErrZIMCut = errors.New("the ZIM file is cut short")
	// ErrZIMChecksum: the MD5 at the file's end does not match its bytes.
	ErrZIMChecksum = errors.New("the ZIM file's checksum does not match its contents")
	// ErrExists: a library of that name is carried already.
	ErrExists = errors.New("a library of that name is carried already")
	// ErrNotFound: no library of that name is carried.
	ErrNotFound = errors.New("no library of that name is carried")
	// ErrMissing: a library's file is gone or changed since it was added.
	ErrMissing = errors.New("the library's file is gone")
	// ErrNoKiwix: kiwix-serve cannot be found or started.
	ErrNoKiwix = errors.New("kiwix-serve is not available")
	// ErrNoLibrary: browsing offline needs a carried library.
	ErrNoLibrary = errors.New("no library is carried")
	// ErrAirGapped: the web is off on an air-gapped machine.
	ErrAirGapped = errors.New("the machine is air-gapped: the web is off")
	// ErrNoEngine: no search engine is set.
	ErrNoEngine = errors.New("no search engine is set")
	// ErrRefused: an address, a scheme, a redirect or robots.txt forbids
	// the fetch.
	ErrRefused = errors.New("refused")
	// ErrEngine: the search engine answered with an error or not JSON.
	ErrEngine = errors.New("the search engine failed")
	// ErrPage: the page could not be read (status, type, time).
	ErrPage = errors.New("the page could not be read")
)
