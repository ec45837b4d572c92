package core

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"rehome/backend/atomicfile"
	"rehome/backend/bytesize"
	"rehome/backend/vision"
)

// Upload is a file a page handed over, kept in the data folder's uploads
// (a page cannot give a file's place on disk).
type Upload struct {
	Path string `json:"path"`
	Name string `json:"name"`
	Size int64  `json:"size"`
	// Again: the same bytes under the same name were kept before; that
	// copy is the one given.
	Again bool `json:"again,omitempty"`
}

// KeepUpload streams r, the file named name (a clean base name), to
// <data>/uploads/<content hash>/<name>, up to limit bytes; size is the
// length the sender announced (-1: not known), and a body that ends
// before it is refused as cut short. The same file kept again lands on
// the same path, stored once. The file is readable like one the user
// saved (the sandbox's unprivileged user reads it through its bind
// mount); the folders stay private. An error wrapping ErrUploadStore is
// the data folder's; any other is the upload's.
func (c *Core) KeepUpload(name string, r io.Reader, size, limit int64) (Upload, error) {
	if name == "" || name == "." || name == ".." || filepath.Base(name) != name {
		return Upload{}, fmt.Errorf("the upload's name %q is not a file name", name)
	}
	root := filepath.Join(c.dir, UploadsDir)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return Upload{}, fmt.Errorf("%w: %v", ErrUploadStore, err)
	}
	f, err := atomicfile.New(filepath.Join(root, "upload"), 0o644)
	if err != nil {
		return Upload{}, fmt.Errorf("%w: %v", ErrUploadStore, err)
	}
	defer f.Cleanup()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, limit+1))
	switch {
	case err != nil:
		return Upload{}, err
	case n > limit:
		return Upload{}, fmt.Errorf("the file is larger than %s; open it in the rehome window instead, which reads files in place", bytesize.Format(limit))
	case size >= 0 && n != size:
		return Upload{}, errors.New("the upload was cut short: drop the file again")
	}
	dir := filepath.Join(root, hex.EncodeToString(h.Sum(nil))[:24])
	up := Upload{Path: filepath.Join(dir, name), Name: name, Size: n}
	if st, err := os.Stat(up.Path); err == nil && st.Size() == n {
		up.Again = true
		return up, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Upload{}, fmt.Errorf("%w: %v", ErrUploadStore, err)
	}
	if err := f.CommitAs(up.Path); err != nil {
		return Upload{}, err
	}
	return up, nil
}

// MaxPastedImage is the most bytes of a pasted image: an image given to a
// question is read up to vision.MaxFileBytes.
const MaxPastedImage = vision.MaxFileBytes

// KeepPastedImage keeps an image pasted from the clipboard (the window's:
// bytes, not a file) as an upload, once vetted within the bounds of an
// image given to a question (vision.Check: its size, its format, the
// pixels its header claims; a bomb is refused in words before anything
// is decoded). It is named pasted-<its hash>.<format>, so the same image
// pasted twice is the same file, and two screenshots never share a name
// at /mnt/data.
func (c *Core) KeepPastedImage(data []byte) (Upload, error) {
	format, err := vision.Check("pasted from the clipboard", data)
	if err != nil {
		return Upload{}, err
	}
	if format == "jpeg" {
		format = "jpg"
	}
	sum := sha256.Sum256(data)
	name := "pasted-" + hex.EncodeToString(sum[:4]) + "." + format
	return c.KeepUpload(name, bytes.NewReader(data), int64(len(data)), MaxPastedImage)
}
