package store

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Opening a file already at SchemaVersion writes nothing: no transaction,
// so no fdatasync (a `rehome run` opens the database three or four
// times). The file's bytes — bbolt's meta pages carry the last
// transaction's id — stay the same across an open and close.
func TestOpenOfACurrentFileWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(Runs, NewID(), map[string]any{"schema": 1}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("opening a current database wrote to it")
	}
}
