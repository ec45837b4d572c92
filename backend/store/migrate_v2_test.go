package store

import (
	"encoding/binary"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// A file written by a build at schema 1 (no conversations bucket) opens
// with its records kept and the conversations bucket added.
func TestMigrateSchema1To2(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range []Bucket{Assistants, Audits, Runs, Settings} {
			if _, err := tx.CreateBucket([]byte(b)); err != nil {
				return err
			}
		}
		if err := tx.Bucket([]byte(Assistants)).Put([]byte("a1"), []byte(`{"schema":1,"id":"a1"}`)); err != nil {
			return err
		}
		mb, err := tx.CreateBucket([]byte(meta))
		if err != nil {
			return err
		}
		var raw [8]byte
		binary.BigEndian.PutUint64(raw[:], 1)
		return mb.Put([]byte("schema_version"), raw[:])
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.Version(); v != SchemaVersion {
		t.Fatalf("version %d", v)
	}
	if n, err := s.Count(Conversations); err != nil || n != 0 {
		t.Fatalf("conversations: %d %v", n, err)
	}
	if n, err := s.Count(Models); err != nil || n != 0 {
		t.Fatalf("the carried models' bucket (schema 3): %d %v", n, err)
	}
	var a struct{ ID string }
	if err := s.Get(Assistants, "a1", &a); err != nil || a.ID != "a1" {
		t.Fatalf("the schema-1 record: %+v %v", a, err)
	}
}
