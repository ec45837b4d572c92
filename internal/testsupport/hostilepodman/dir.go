package hostilepodman

import (
	"os"
	"testing"
)

// Dir is a folder for Start whose path is short enough for a unix socket
// (108 bytes; t.TempDir's can be longer), removed when the test ends.
func Dir(tb testing.TB) string {
	tb.Helper()
	d, err := os.MkdirTemp("/tmp", "hp-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(d) })
	return d
}
