package blobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"rehome/backend/atomicfile"
)

// Store holds blobs in one folder.
type Store struct {
	dir string
	max int64
}

// New returns the store over dir, taking files of at most max bytes
// (0: no limit).
func New(dir string, max int64) *Store { return &Store{dir: dir, max: max} }

// Blob is one stored file.
type Blob struct {
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Path   string `json:"path"`
}

var hexSHA = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Path is where the blob with that hash lives ("" for a string that is
// not a SHA-256 in hex: never a path outside the store).
func (s *Store) Path(sum string) string {
	if !hexSHA.MatchString(sum) {
		return ""
	}
	return filepath.Join(s.dir, sum)
}

// Put copies the file at src into the store, hashing it on the way, and
// returns its blob; a file already there is not copied again. ctx ends a
// long copy.
func (s *Store) Put(ctx context.Context, src string) (Blob, error) {
	f, err := os.Open(src)
	if err != nil {
		return Blob{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Blob{}, err
	}
	if !st.Mode().IsRegular() {
		return Blob{}, fmt.Errorf("%s is not a regular file", src)
	}
	if s.max > 0 && st.Size() > s.max {
		return Blob{}, fmt.Errorf("%w (%d bytes)", ErrTooLarge, st.Size())
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return Blob{}, err
	}
	tmp, err := atomicfile.New(filepath.Join(s.dir, "incoming"), 0o400)
	if err != nil {
		return Blob{}, err
	}
	defer tmp.Cleanup()
	h := sha256.New()
	var r io.Reader = f
	if s.max > 0 {
		r = io.LimitReader(f, s.max+1) // a file that grows while copied
	}
	n, err := io.Copy(io.MultiWriter(tmp, h), ctxReader{ctx, r})
	if err != nil {
		return Blob{}, err
	}
	if s.max > 0 && n > s.max {
		return Blob{}, fmt.Errorf("%w (%d bytes and growing)", ErrTooLarge, n)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	b := Blob{SHA256: sum, Size: n, Path: filepath.Join(s.dir, sum)}
	if _, err := os.Stat(b.Path); err == nil {
		return b, nil
	}
	if err := tmp.CommitAs(b.Path); err != nil {
		return Blob{}, err
	}
	return b, nil
}

// Remove deletes the blob with that hash; one already gone is no error.
func (s *Store) Remove(sum string) error {
	p := s.Path(sum)
	if p == "" {
		return fmt.Errorf("%q is not a SHA-256", sum)
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
