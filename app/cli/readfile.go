package cli

import (
	"fmt"
	"io"
	"os"

	"rehome/backend/bytesize"
	"rehome/backend/core"
)

// readFileAtMost reads a file the user named (a schema, instructions, an
// assistant's JSON, an MCP configuration) whole, if it holds at most max
// bytes. A bigger one is refused by its size before a byte is read, and
// one whose size says nothing (a device, a pipe) or that grows while it
// is read is cut at max+1 and refused: a command never holds more than
// max of it (issue 29: a 400 MB file read whole drove rehome to 22 GiB).
// what names the file in the refusal ("an OpenAPI schema"). An error of
// os.Open comes back as it is (errors.Is(err, os.ErrNotExist) holds).
func readFileAtMost(path string, max int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One buffer of the size the file says (or the bound, for a device or
	// a pipe: pages never written take no memory), never a doubling
	// append, so a read holds at most max and a few pages.
	size := max + 1
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if st.Size() > max {
			return nil, fmt.Errorf("%s is %s: %s is at most %s, so it was not read", path, bytesize.Format(st.Size()), what, bytesize.Format(max))
		}
		size = st.Size() + 1 // one more: a file that grew is seen
	}
	data := make([]byte, size)
	n, err := io.ReadFull(f, data)
	switch {
	case err == nil && size <= max: // it grew while read: the rest, to the bound
		more, err := io.ReadAll(io.LimitReader(f, max+1-size))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		data = append(data, more...)
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		data = data[:n]
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s holds more than %s: %s is at most %s, so the rest was not read", path, bytesize.Format(max), what, bytesize.Format(max))
	}
	return data, nil
}

// The most a command reads of the files it takes whole.
const (
	// maxSchemaFile bounds an action's OpenAPI schema (stdin too).
	maxSchemaFile = 8 << 20
	// maxImportJSON bounds an assistant's JSON (stdin too), as the
	// import itself does.
	maxImportJSON = core.MaxImportJSON
)
