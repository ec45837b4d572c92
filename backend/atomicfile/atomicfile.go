package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
)

// File is a file being written for a destination. Write to it, then Commit
// (or CommitAs); Cleanup removes it when it was not committed, so it can
// always be deferred.
type File struct {
	*os.File
	path string
	perm os.FileMode
	done bool
}

// New starts a file for path, with mode perm once committed (exactly perm:
// the umask does not apply). It is written in path's folder, which must
// exist, under a hidden temporary name.
func New(path string, perm os.FileMode) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".part-*")
	if err != nil {
		return nil, err
	}
	return &File{File: f, path: path, perm: perm}, nil
}

// Commit makes the file written so far the content of its path.
func (f *File) Commit() error { return f.CommitAs(f.path) }

// CommitAs makes the file written so far the content of path instead, a
// path on the same file system (an upload named by its hash once read).
// It syncs the file, sets its mode, renames it and syncs the folders of
// both names.
func (f *File) CommitAs(path string) error {
	if f.done {
		return errors.New("atomicfile: " + f.path + " was already committed")
	}
	err := f.Sync()
	if err == nil {
		err = f.Chmod(f.perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		f.done = true
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		f.done = true
		return err
	}
	f.done = true
	from, to := filepath.Dir(f.Name()), filepath.Dir(path)
	if err := SyncDir(to); err != nil {
		return err
	}
	if from != to {
		return SyncDir(from)
	}
	return nil
}

// CommitNew is Commit that never replaces a file: when path exists it
// returns an error wrapping os.ErrExist and the file stays uncommitted,
// so that another name may be tried (CommitNew again, or Cleanup).
func (f *File) CommitNew(path string) error {
	if f.done {
		return errors.New("atomicfile: " + f.path + " was already committed")
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Chmod(f.perm); err != nil {
		return err
	}
	// A hard link fails when path exists: the check and the naming are
	// one step.
	if err := os.Link(f.Name(), path); err != nil {
		return err
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
	return SyncDir(filepath.Dir(path))
}

// Cleanup closes and removes the file unless it was committed. It does
// nothing after Commit, so defer it right after New.
func (f *File) Cleanup() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// Write writes what fill writes (through a buffer) to path, atomically and
// durably, with mode perm. When fill fails, path is left as it was.
func Write(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	f, err := New(path, perm)
	if err != nil {
		return err
	}
	defer f.Cleanup()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := fill(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Commit()
}

// WriteFile is os.WriteFile made atomic and durable: path holds data with
// mode perm, or is left as it was.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// SyncDir syncs a folder, so that the names just made or renamed in it
// survive a crash.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
