package store

import "errors"

// GetChecked reads record id of bucket b into v and refuses one a newer
// rehome wrote: schema points at v's schema field, checked against known
// (CheckSchema). A record not stored yet is no error and leaves v as the
// caller set it (its defaults).
func (s *Store) GetChecked(b Bucket, id string, v any, schema *int, known int) error {
	err := s.Get(b, id, v)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return CheckSchema(b, id, *schema, known)
}

// Upsert is Modify for a record that may not be stored yet: then fresh
// resets v, fn changes it, and v is stored. fn's error stores nothing.
func (s *Store) Upsert(b Bucket, id string, v any, fresh func(), fn func() error) error {
	err := s.Modify(b, id, v, fn)
	if errors.Is(err, ErrNotFound) {
		fresh()
		if err = fn(); err != nil {
			return err
		}
		err = s.Put(b, id, v)
	}
	return err
}
