package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Record is one encoded record for PutAll.
type Record struct {
	ID   string
	Data []byte
}

// PutAll stores every record of recs in bucket b in one transaction:
// all of them are kept, or none (an import's batch). It returns once
// the write is durable on disk.
func (s *Store) PutAll(b Bucket, recs []Record) error {
	if len(recs) == 0 {
		return nil
	}
	return s.update(func(tx *bolt.Tx) error {
		bk := tx.Bucket([]byte(b))
		if bk == nil {
			return fmt.Errorf("no bucket %q", b)
		}
		for _, r := range recs {
			if err := bk.Put([]byte(r.ID), r.Data); err != nil {
				return fmt.Errorf("keep %s %s: %w", singular(b), r.ID, err)
			}
		}
		return nil
	})
}

// GetRaw calls fn with the stored bytes of record id of bucket b (valid
// only during the call); it returns an error wrapping ErrNotFound when
// there is none.
func (s *Store) GetRaw(b Bucket, id string, fn func(raw []byte) error) error {
	return s.view(func(tx *bolt.Tx) error {
		_, raw, err := findRecord(tx, b, id)
		if err != nil {
			return err
		}
		return fn(raw)
	})
}

// findRecord finds bucket b and the stored bytes of its record id in tx; the
// error wraps ErrNotFound when there is no such record.
func findRecord(tx *bolt.Tx, b Bucket, id string) (*bolt.Bucket, []byte, error) {
	bk := tx.Bucket([]byte(b))
	if bk == nil {
		return nil, nil, fmt.Errorf("no bucket %q", b)
	}
	raw := bk.Get([]byte(id))
	if raw == nil {
		return nil, nil, fmt.Errorf("%s %q: %w", singular(b), id, ErrNotFound)
	}
	return bk, raw, nil
}
