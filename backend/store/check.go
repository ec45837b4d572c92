package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"

	"rehome/backend/atomicfile"
)

// Check runs bbolt's consistency check over the whole file and returns
// every problem it finds (none for a sound file).
//
// bbolt's own check panics, in a goroutine of its own, on a page that is
// not what its parent says it is; that would take the whole program down.
// So Check first walks every bucket and key itself, turning such a panic
// into a problem, and hands over to bbolt's check only when the walk read
// every page cleanly.
func (s *Store) Check() ([]error, error) {
	var problems []error
	err := s.view(func(tx *bolt.Tx) error {
		if err := walk(tx); err != nil {
			problems = append(problems, err)
			return nil
		}
		for e := range tx.Check() {
			problems = append(problems, e)
		}
		return nil
	})
	return problems, err
}

// walk reads every key of every bucket, nested ones too, and reports the
// first damaged page it meets.
func walk(tx *bolt.Tx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("damaged page: %v", r)
		}
	}()
	var visit func(b *bolt.Bucket) error
	visit = func(b *bolt.Bucket) error {
		return b.ForEach(func(k, v []byte) error {
			if v == nil {
				if nb := b.Bucket(k); nb != nil {
					return visit(nb)
				}
			}
			return nil
		})
	}
	return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
		return visit(b)
	})
}

// Backup writes a consistent copy of the database to w while it stays in
// use (a hot backup) and returns the number of bytes written.
func (s *Store) Backup(w io.Writer) (int64, error) {
	var n int64
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	return n, err
}

// BackupFile writes a hot backup to path, atomically: the copy appears
// under its name only once complete.
func (s *Store) BackupFile(path string) (int64, error) {
	f, err := atomicfile.New(path, 0o600)
	if err != nil {
		return 0, fmt.Errorf("create backup: %w", err)
	}
	defer f.Cleanup()
	n, err := s.Backup(f)
	if err == nil {
		err = f.Commit()
	}
	if err != nil {
		return 0, fmt.Errorf("write backup: %w", err)
	}
	return n, nil
}

// BackupNew writes a hot backup into dir under a name of its own, never
// replacing one: stem.db, else stem-2.db, stem-3.db… (two backups in one
// millisecond get two files). It returns the path and the bytes written.
func (s *Store) BackupNew(dir, stem string) (string, int64, error) {
	f, err := atomicfile.New(filepath.Join(dir, stem+".db"), 0o600)
	if err != nil {
		return "", 0, fmt.Errorf("create backup: %w", err)
	}
	defer f.Cleanup()
	n, err := s.Backup(f)
	if err != nil {
		return "", 0, fmt.Errorf("write backup: %w", err)
	}
	for i := 1; i <= 1000; i++ {
		name := stem + ".db"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.db", stem, i)
		}
		path := filepath.Join(dir, name)
		err := f.CommitNew(path)
		if err == nil {
			return path, n, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", 0, fmt.Errorf("write backup: %w", err)
		}
	}
	return "", 0, fmt.Errorf("write backup: 1,000 backups named %s in %s already", stem, dir)
}

func singular(b Bucket) string {
	switch b {
	case Assistants:
		return "assistant"
	case Audits:
		return "audit"
	case Runs:
		return "run"
	case Settings:
		return "setting"
	case Conversations:
		return "conversation"
	case Memories:
		return "memory"
	}
	return string(b)
}
