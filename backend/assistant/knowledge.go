package assistant

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"rehome/backend/atomicfile"
	"rehome/backend/bytesize"
	"rehome/backend/ids"
)

// KnowledgeDir is the folder, under rehome's data folder, that holds
// rehome's own copy of every knowledge file: <data>/knowledge/<sha256>/<name>
// (one folder per content, the file in it under the name the model sees
// at /mnt/data; the same bytes attached again under another name reuse it).
// It is the one place knowledge bytes live: what a bundle carries is
// written there, a file the user attaches is copied there, and only a
// file there is ever mounted into the sandbox or put in a bundle.
const KnowledgeDir = "knowledge"

// Library is rehome's own, content-addressed copy of knowledge files: one
// file per content, named by its SHA-256, in one folder. An import can
// name any path it likes; only what is in the library is mounted.
type Library struct{ dir string }

// NewLibrary returns the library in dir (normally <data>/knowledge).
func NewLibrary(dir string) Library { return Library{dir: filepath.Clean(dir)} }

// Dir is the library's folder.
func (l Library) Dir() string { return l.dir }

// PathFor is where the bytes with hash sum live in the library under
// name (made safe for every file system).
func (l Library) PathFor(sum, name string) string {
	return filepath.Join(l.dir, sum, safeName(name))
}

// Place is PathFor with the library's folder for sum made, or checked to
// be a folder of the library's own: a link there (in a data folder
// copied from elsewhere or restored) may name any folder on this
// machine, and a file placed through it would land there (ErrNotOwnFolder).
func (l Library) Place(sum, name string) (string, error) {
	dir, _, err := l.hashFolder(sum)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, safeName(name)), nil
}

// hashFolder is the library's folder for sum, made when absent (made
// says so); one that is not a real folder is refused.
func (l Library) hashFolder(sum string) (dir string, made bool, err error) {
	dir = filepath.Join(l.dir, sum)
	if err := os.Mkdir(dir, 0o700); err == nil {
		made = true
	} else if !errors.Is(err, os.ErrExist) {
		return "", false, fmt.Errorf("knowledge: create %s: %w", dir, err)
	}
	if !l.ownFolder(sum) {
		return "", false, fmt.Errorf("knowledge: %s: %w: move it away and attach the file again", dir, ErrNotOwnFolder)
	}
	return dir, made, nil
}

// ownFolder says whether the library's folder for sum is a real folder
// (not a link, which could name any folder on this machine).
func (l Library) ownFolder(sum string) bool {
	st, err := os.Lstat(filepath.Join(l.dir, sum))
	return err == nil && st.IsDir()
}

// Add copies the file at path — one the user named: picked, dropped, or
// given on the command line — into the library and returns its
// reference, whose Path is the copy. A copy already there is reused.
func (l Library) Add(path string) (KnowledgeFile, error) {
	return l.AddAs(context.Background(), path, filepath.Base(path))
}

// maxCopyBytes is the most AddAs copies (MaxKnowledgeBytes; a test
// lowers it).
var maxCopyBytes int64 = MaxKnowledgeBytes

// AddAs is Add under name (the name the copy gets in the library, and
// the reference's), with ctx ending a long copy (nothing is kept then).
func (l Library) AddAs(ctx context.Context, path, name string) (KnowledgeFile, error) {
	if l.dir == "" || l.dir == "." {
		return KnowledgeFile{}, errors.New("knowledge: rehome has no data folder to keep knowledge files in")
	}
	src, err := openKnowledge(path)
	if err != nil {
		return KnowledgeFile{}, err
	}
	defer src.Close()
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return KnowledgeFile{}, fmt.Errorf("knowledge: create %s: %w", l.dir, err)
	}
	// Copy under a temporary name while hashing, then name it by its hash.
	tmp, err := atomicfile.New(filepath.Join(l.dir, "adding"), 0o600)
	if err != nil {
		return KnowledgeFile{}, fmt.Errorf("knowledge: write into %s: %w", l.dir, err)
	}
	defer tmp.Cleanup()
	h := sha256.New()
	// Never more than a knowledge file may hold, should the file grow
	// while it is copied (what its size said before is no bound).
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(ctxReader{ctx, src}, maxCopyBytes+1))
	if ctx.Err() != nil {
		return KnowledgeFile{}, ctx.Err()
	}
	if err == nil && n > maxCopyBytes {
		return KnowledgeFile{}, fmt.Errorf("knowledge file %s: %w (it grew past %s while it was copied; nothing was kept)", path, ErrKnowledgeTooLarge, bytesize.Format(maxCopyBytes))
	}
	if err != nil {
		return KnowledgeFile{}, fmt.Errorf("knowledge file %s: copy into %s: %w (free some disk space and attach it again)", path, l.dir, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	final, err := l.Place(sum, name)
	if err != nil {
		return KnowledgeFile{}, err
	}
	if have := l.copyOf(sum, n); have != "" {
		final = have // the same bytes are here already, maybe by another name
	} else if err := tmp.CommitAs(final); err != nil {
		return KnowledgeFile{}, fmt.Errorf("knowledge file %s: place it in %s: %w", path, l.dir, err)
	}
	return KnowledgeFile{Name: name, Size: n, SHA256: sum, Path: final}, nil
}

// CopyOf is the library's copy of the bytes with hash sum, "" when it
// has none.
func (l Library) CopyOf(sum string) string {
	if !ids.IsSHA256(sum) || !l.ownFolder(sum) {
		return ""
	}
	entries, _ := os.ReadDir(filepath.Join(l.dir, sum))
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			return filepath.Join(l.dir, sum, e.Name())
		}
	}
	return ""
}

// ctxReader ends a copy when its context ends.
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

// copyOf returns a file of size n the library holds for sum, or "".
func (l Library) copyOf(sum string, n int64) string {
	if !l.ownFolder(sum) {
		return ""
	}
	entries, _ := os.ReadDir(filepath.Join(l.dir, sum))
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			if fi, err := e.Info(); err == nil && fi.Size() == n {
				return filepath.Join(l.dir, sum, e.Name())
			}
		}
	}
	return ""
}

func openKnowledge(path string) (*os.File, error) {
	// Without blocking: a named pipe would hold the open until a writer
	// came (for ever); it is refused below instead.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("knowledge file %s: not found: check the path", path)
		}
		return nil, fmt.Errorf("knowledge file %s: %w", path, err)
	}
	st, err := f.Stat()
	switch {
	case err != nil:
		f.Close()
		return nil, fmt.Errorf("knowledge file %s: %w", path, err)
	case st.IsDir():
		f.Close()
		return nil, fmt.Errorf("knowledge file %s: is a folder: attach the files in it one by one", path)
	case st.Mode()&os.ModeNamedPipe != 0:
		f.Close()
		return nil, fmt.Errorf("knowledge file %s: not a regular file but a named pipe (FIFO): save what it gives to a file and attach that", path)
	case !st.Mode().IsRegular():
		f.Close()
		return nil, fmt.Errorf("knowledge file %s: not a regular file", path)
	}
	return f, nil
}

// Owns says whether k.Path is the library's own copy of k: a file in
// <dir>/<k.SHA256>/ (or <dir>/<k.SHA256>-<name>, as bundles of earlier
// rehome versions placed them), a regular file, not a link. Whether it
// still holds k's bytes is for the reader to check.
func (l Library) Owns(k KnowledgeFile) bool {
	if k.Path == "" || !ids.IsSHA256(k.SHA256) || l.dir == "" || l.dir == "." {
		return false
	}
	p := filepath.Clean(k.Path)
	inHashDir := filepath.Dir(filepath.Dir(p)) == l.dir && filepath.Base(filepath.Dir(p)) == k.SHA256
	legacy := filepath.Dir(p) == l.dir && strings.HasPrefix(filepath.Base(p), k.SHA256+"-")
	if !inHashDir && !legacy {
		return false
	}
	if inHashDir {
		if st, err := os.Lstat(filepath.Dir(p)); err != nil || !st.IsDir() {
			return false
		}
	}
	st, err := os.Lstat(p)
	return err == nil && st.Mode().IsRegular()
}

// Mounts returns the paths of a's knowledge files that may be mounted
// into the sandbox — the library's own copies — and, for every other
// reference, a note saying why it is not mounted and what to do.
func (l Library) Mounts(a Assistant) (paths, notes []string) {
	for _, k := range a.Knowledge {
		switch {
		case l.Owns(k):
			paths = append(paths, filepath.Clean(k.Path))
		case k.Path == "":
			notes = append(notes, fmt.Sprintf("knowledge %q is not on this machine: attach the file to %s to use it", k.Name, a.Name))
		default:
			notes = append(notes, fmt.Sprintf("knowledge %q is not mounted: its record names %s, which is not rehome's own copy (an imported description may not choose files on this machine); attach the file to %s again", k.Name, k.Path, a.Name))
		}
	}
	return paths, notes
}

// checkKnowledge refuses knowledge references that name a file on this
// machine rehome did not copy itself: a path must be the library's own
// copy, or be unchanged from old (a record stored before this rule, which
// Mounts still refuses to mount).
func (l Library) checkKnowledge(a Assistant, old []KnowledgeFile) error {
	for i, k := range a.Knowledge {
		if k.Path == "" || l.Owns(k) {
			continue
		}
		if unchanged(k, old) {
			continue
		}
		return fmt.Errorf("%w: knowledge[%d] %q names %s: %w; attach the file itself (drop or pick it, or `--knowledge FILE`) and rehome copies it into %s", ErrInvalid, i, k.Name, k.Path, ErrNotOwnCopy, l.dir)
	}
	return nil
}

func unchanged(k KnowledgeFile, old []KnowledgeFile) bool {
	for _, o := range old {
		if o == k {
			return true
		}
	}
	return false
}
