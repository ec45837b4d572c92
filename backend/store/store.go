package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Bucket names one kind of record.
type Bucket string

// The buckets rehome keeps.
const (
	Assistants Bucket = "assistants"
	Audits     Bucket = "audits"
	Runs       Bucket = "runs"
	Settings   Bucket = "settings"
	// Conversations are questions asked in words (rehome ask, the
	// conversation screen) with their cells and answers.
	Conversations Bucket = "conversations"
	// Models are the GGUF files the user carries, registered with rehome
	// (`rehome models add`).
	Models Bucket = "models"
	// Memories are what the user asked a model to remember (the memory
	// tool, Settings → Memory, an import of ChatGPT's saved memories).
	Memories Bucket = "memories"
	meta     Bucket = "meta"
)

// Buckets lists the record buckets in a fixed order.
var Buckets = []Bucket{Assistants, Audits, Runs, Settings, Conversations, Models, Memories}

// SchemaVersion is the layout version this build writes. Open migrates an
// older file up to it and refuses a newer one.
const SchemaVersion = 4

// FileName is the database's name inside the data directory.
const FileName = "rehome.db"

// CheckSchema returns an error wrapping ErrNewer when record id of bucket b
// carries a schema above known, the version this build writes.
func CheckSchema(b Bucket, id string, schema, known int) error {
	if schema > known {
		return fmt.Errorf("%s %s was %w (schema %d, this build knows %d): update rehome to read it", singular(b), id, ErrNewer, schema, known)
	}
	return nil
}

// Store is an open rehome database. It is safe for concurrent use.
type Store struct {
	db   *bolt.DB
	path string
}

// Options tune Open.
type Options struct {
	// Timeout is how long Open waits for another process to release the
	// file lock. Zero means one second.
	Timeout time.Duration
	// ReadOnly opens the file without taking the write lock.
	ReadOnly bool
}

// Open opens (creating if needed) the database at path, applies pending
// migrations and returns it. If another process holds the file, Open gives
// up after opts.Timeout with an error wrapping ErrLocked.
func Open(path string, opts Options) (*Store, error) {
	if opts.Timeout == 0 {
		opts.Timeout = time.Second
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w (set REHOME_HOME to a writable folder)", err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: opts.Timeout, ReadOnly: opts.ReadOnly})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, fmt.Errorf("%w: %s is in use by another rehome process (a window or `rehome serve`): close it and try again, or point REHOME_HOME elsewhere", ErrLocked, path)
		}
		return nil, fmt.Errorf("open database %s: %w (run `rehome doctor`; restore from a `rehome backup` copy if it is damaged)", path, err)
	}
	s := &Store{db: db, path: path}
	if !opts.ReadOnly {
		if err := s.migrate(); err != nil {
			db.Close()
			return nil, err
		}
	}
	return s, nil
}

// view and update run a bbolt transaction, turning the panic bbolt raises
// on a damaged page into an error wrapping ErrDamaged (bbolt rolls the
// transaction back before the panic reaches here).
func (s *Store) view(fn func(*bolt.Tx) error) error {
	return s.guard(func() error { return s.db.View(fn) })
}
func (s *Store) update(fn func(*bolt.Tx) error) error {
	return s.guard(func() error { return s.db.Update(fn) })
}

func (s *Store) guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %s: %v (restore a copy made with `rehome backup`, or move the file away to start afresh)", ErrDamaged, s.path, r)
		}
	}()
	return fn()
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Close releases the database and its lock.
func (s *Store) Close() error { return s.db.Close() }

// migrations[i] brings a file from version i to i+1.
var migrations = []func(tx *bolt.Tx) error{
	// 0 -> 1: create the buckets.
	func(tx *bolt.Tx) error {
		for _, b := range Buckets {
			if _, err := tx.CreateBucketIfNotExists([]byte(b)); err != nil {
				return err
			}
		}
		return nil
	},
	// 1 -> 2: the conversations bucket.
	func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists([]byte(Conversations))
		return err
	},
	// 2 -> 3: the carried models' bucket.
	func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists([]byte(Models))
		return err
	},
	// 3 -> 4: the memories' bucket.
	func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists([]byte(Memories))
		return err
	},
}

// Version returns the schema version recorded in the file.
func (s *Store) Version() (int, error) {
	var v int
	err := s.view(func(tx *bolt.Tx) error {
		v = readVersion(tx)
		return nil
	})
	return v, err
}

func readVersion(tx *bolt.Tx) int {
	b := tx.Bucket([]byte(meta))
	if b == nil {
		return 0
	}
	raw := b.Get([]byte("schema_version"))
	if len(raw) != 8 {
		return 0
	}
	return int(binary.BigEndian.Uint64(raw))
}

// migrate brings the file to SchemaVersion. A file already there is only
// read: a write transaction costs two fdatasyncs, and every command that
// opens the database (a `rehome run` opens it three or four times, briefly)
// would pay them.
func (s *Store) migrate() error {
	current := false
	if err := s.view(func(tx *bolt.Tx) error {
		v := readVersion(tx)
		if v > SchemaVersion {
			return fmt.Errorf("database %s was written by a newer rehome (schema %d, this build knows %d): upgrade rehome", s.path, v, SchemaVersion)
		}
		current = v == SchemaVersion
		return nil
	}); err != nil || current {
		return err
	}
	return s.update(func(tx *bolt.Tx) error {
		mb, err := tx.CreateBucketIfNotExists([]byte(meta))
		if err != nil {
			return err
		}
		v := readVersion(tx)
		if v > SchemaVersion {
			return fmt.Errorf("database %s was written by a newer rehome (schema %d, this build knows %d): upgrade rehome", s.path, v, SchemaVersion)
		}
		for ; v < SchemaVersion; v++ {
			if err := migrations[v](tx); err != nil {
				return fmt.Errorf("migrate database to schema %d: %w", v+1, err)
			}
		}
		var raw [8]byte
		binary.BigEndian.PutUint64(raw[:], uint64(SchemaVersion))
		return mb.Put([]byte("schema_version"), raw[:])
	})
}

// Put stores v as JSON under id in bucket b, replacing any earlier value.
// It returns once the write is durable on disk.
func (s *Store) Put(b Bucket, id string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s record: %w", b, err)
	}
	return s.update(func(tx *bolt.Tx) error {
		bk := tx.Bucket([]byte(b))
		if bk == nil {
			return fmt.Errorf("no bucket %q", b)
		}
		return bk.Put([]byte(id), data)
	})
}

// PutJSON stores each of recs (by id) as JSON in bucket b in one
// transaction, as PutAll does: all or none, synced once.
func (s *Store) PutJSON(b Bucket, recs map[string]any) error {
	out := make([]Record, 0, len(recs))
	for id, v := range recs {
		raw, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encode %s record: %w", b, err)
		}
		out = append(out, Record{ID: id, Data: raw})
	}
	return s.PutAll(b, out)
}

// Get decodes the record id of bucket b into v. It returns an error
// wrapping ErrNotFound when there is none.
func (s *Store) Get(b Bucket, id string, v any) error {
	return s.GetRaw(b, id, func(raw []byte) error { return json.Unmarshal(raw, v) })
}

// Modify decodes record id of bucket b into v, calls fn, which changes v,
// and stores v again, all in one transaction: concurrent calls on the same
// record run one after the other, so none loses another's change. When fn
// returns an error nothing is stored. It returns an error wrapping
// ErrNotFound when there is no record id.
func (s *Store) Modify(b Bucket, id string, v any, fn func() error) error {
	return s.update(func(tx *bolt.Tx) error {
		bk, raw, err := findRecord(tx, b, id)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, v); err != nil {
			return fmt.Errorf("decode %s %s: %w", singular(b), id, err)
		}
		if err := fn(); err != nil {
			return err
		}
		data, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encode %s record: %w", b, err)
		}
		return bk.Put([]byte(id), data)
	})
}

// Delete removes record id from bucket b; it returns an error wrapping
// ErrNotFound when there is none.
func (s *Store) Delete(b Bucket, id string) error {
	return s.update(func(tx *bolt.Tx) error {
		bk := tx.Bucket([]byte(b))
		if bk == nil {
			return fmt.Errorf("no bucket %q", b)
		}
		if bk.Get([]byte(id)) == nil {
			return fmt.Errorf("%s %q: %w", singular(b), id, ErrNotFound)
		}
		return bk.Delete([]byte(id))
	})
}

// Each calls fn with each record of bucket b, newest first, until fn
// returns false or an error. The raw bytes are valid only during the call.
func (s *Store) Each(b Bucket, fn func(id string, raw []byte) (bool, error)) error {
	return s.view(func(tx *bolt.Tx) error {
		bk := tx.Bucket([]byte(b))
		if bk == nil {
			return fmt.Errorf("no bucket %q", b)
		}
		c := bk.Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			more, err := fn(string(k), v)
			if err != nil || !more {
				return err
			}
		}
		return nil
	})
}

// List decodes up to limit records of bucket b (all when limit <= 0),
// newest first.
func List[T any](s *Store, b Bucket, limit int) ([]T, error) {
	out := []T{}
	err := s.Each(b, func(id string, raw []byte) (bool, error) {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return false, fmt.Errorf("decode %s %s: %w", singular(b), id, err)
		}
		out = append(out, v)
		return limit <= 0 || len(out) < limit, nil
	})
	return out, err
}

// Count returns the number of records in bucket b.
func (s *Store) Count(b Bucket) (int, error) {
	n := 0
	err := s.view(func(tx *bolt.Tx) error {
		bk := tx.Bucket([]byte(b))
		if bk == nil {
			return fmt.Errorf("no bucket %q", b)
		}
		n = bk.Stats().KeyN
		return nil
	})
	return n, err
}
