package core

import (
	"fmt"

	"rehome/backend/knowledge"
	"rehome/backend/llm"
	"rehome/backend/store"
)

// The database as the faces see it: where it is, what it holds, its
// backups. No face holds the store itself.

// DatabaseInfo is the open database: its file, its schema and how many
// records each bucket holds.
type DatabaseInfo struct {
	Path    string        `json:"path"`
	Schema  int           `json:"schema"`
	Buckets []BucketCount `json:"buckets"`
}

// BucketCount is one bucket's number of records.
type BucketCount struct {
	Name    string `json:"name"`
	Records int    `json:"records"`
}

// DatabasePath is the database file ("" before Open, after a failed one,
// or in Brief mode).
func (c *Core) DatabasePath() string {
	if c.st == nil {
		return ""
	}
	return c.st.Path()
}

// Database reads the open database's schema and counts its records.
func (c *Core) Database() (DatabaseInfo, error) {
	if err := c.Ready(); err != nil {
		return DatabaseInfo{}, err
	}
	info := DatabaseInfo{Path: c.st.Path()}
	v, err := c.st.Version()
	if err != nil {
		return info, fmt.Errorf("read the schema of %s: %w", info.Path, err)
	}
	info.Schema = v
	for _, b := range store.Buckets {
		n, err := c.st.Count(b)
		if err != nil {
			return info, fmt.Errorf("count %s: %w", b, err)
		}
		info.Buckets = append(info.Buckets, BucketCount{Name: string(b), Records: n})
	}
	return info, nil
}

// BackupFile writes a consistent copy of the database to path (which must
// not be the database) and returns its size.
func (c *Core) BackupFile(path string) (int64, error) {
	if err := c.Ready(); err != nil {
		return 0, err
	}
	return c.st.BackupFile(path)
}

// BackupNew writes a consistent copy of the database into dir under a
// new name starting with stem, never replacing a file, and returns its
// path and size.
func (c *Core) BackupNew(dir, stem string) (string, int64, error) {
	if err := c.Ready(); err != nil {
		return "", 0, err
	}
	return c.st.BackupNew(dir, stem)
}

// NewServerEmbedder is the embedding model name served at base (an
// OpenAI-compatible server's base URL, see NormalizeBaseURL), for
// Knowledge.SetEmbedder.
func NewServerEmbedder(base, model string) knowledge.Embedder {
	return knowledge.ServerEmbedder{Client: &llm.Client{BaseURL: base}, Name: model}
}

// CheckDatabase walks the whole database and runs bbolt's consistency
// check: the problems found (none: it is sound), or why it could not look.
func (c *Core) CheckDatabase() ([]error, error) {
	if err := c.Ready(); err != nil {
		return nil, err
	}
	return c.st.Check()
}
