package assistant

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"rehome/backend/store"
)

// A bundle is rehome's portable copy of an assistant: one archive (.tar.gz
// or .zip) holding assistant.json (the manifest: the record and a list of
// its knowledge files) and knowledge/<sha256>-<name> for each file. In a
// .tar.gz assistant.json comes first, so reading can check every file
// against the manifest as it streams by.
const (
	BundleFormat   = "rehome-assistant-bundle"
	BundleVersion  = 1
	bundleManifest = "assistant.json"
	bundleDir      = "knowledge/"
	maxManifest    = 16 << 20
	maxEntries     = MaxBundleFiles + 2 // the files, the manifest, the folder
)

// Bounds on what reading a bundle may write, checked against the manifest
// before anything is written and again as the bytes stream by.
const (
	// MaxKnowledgeBytes is the most one knowledge file may hold: 512 MiB,
	// ChatGPT's own limit for a knowledge file.
	MaxKnowledgeBytes = 512 << 20
	// MaxBundleBytes is the most all of a bundle's knowledge files may
	// hold together: 10 GiB, twenty files at the per-file limit (ChatGPT
	// allows twenty knowledge files per GPT).
	MaxBundleBytes = 10 << 30
	// MaxBundleFiles is the most knowledge files one bundle may carry.
	MaxBundleFiles = 1000
	// MaxInflation is how many times its compressed size a bundle may
	// grow to once the first ratioFloor bytes are out: text and tables
	// compress 3–20 times; a bomb, a thousand.
	MaxInflation = 200
	ratioFloor   = 64 << 20
)

// BundleKind is the archive format.
type BundleKind string

// The archive formats a bundle can have.
const (
	TarGz BundleKind = "tar.gz"
	Zip   BundleKind = "zip"
)

// BundleKindFor picks the format from a file name: .zip is zip, anything
// else tar.gz.
func BundleKindFor(name string) BundleKind {
	if strings.EqualFold(filepath.Ext(name), ".zip") {
		return Zip
	}
	return TarGz
}

// BundleManifest is assistant.json.
type BundleManifest struct {
	Format    string       `json:"format"`
	Version   int          `json:"version"`
	Exported  time.Time    `json:"exported"`
	Assistant Assistant    `json:"assistant"`
	Files     []BundleFile `json:"files"`
}

// BundleFile is one knowledge file in the bundle; Knowledge is its index
// in the assistant's knowledge list.
type BundleFile struct {
	Knowledge int    `json:"knowledge"`
	Entry     string `json:"entry"` // knowledge/<sha256>-<name>, "" when missing
	SHA256    string `json:"sha256"`
	Size      int64  `json:"size"`
	// Missing is true when the file was not on the exporting machine (and
	// the export was told to go on without it).
	Missing bool `json:"missing,omitempty"`
}

// BundleOptions tune WriteBundle.
type BundleOptions struct {
	// AllowMissing writes the bundle even when a knowledge file is not
	// where its reference says; the manifest then marks it missing.
	AllowMissing bool
	// Library is where the knowledge files are: only its own copies are
	// read into a bundle.
	Library Library
	Now     func() time.Time
}

// entryName is the archive name of a knowledge file: its hash and a name
// that is safe on every file system.
func entryName(k KnowledgeFile) string {
	return bundleDir + k.SHA256 + "-" + safeName(k.Name)
}

// safeName is name with what no file system takes replaced, cut to 120
// bytes; "file" when nothing is left.
func safeName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`/\:*?"<>|`, r) {
			return '_'
		}
		return r
	}, name)
	name = strings.Trim(name, ". ")
	for len(name) > 120 {
		_, size := lastRune(name)
		name = name[:len(name)-size]
	}
	if name == "" {
		name = "file"
	}
	return name
}

func lastRune(s string) (rune, int) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i]&0xC0 != 0x80 {
			return rune(s[i]), len(s) - i
		}
	}
	return 0, 1
}

// WriteBundle writes a and its knowledge files to w as a bundle of kind.
// Each file is read from its referenced path and must still have its
// recorded size and hash; the export fails otherwise (unless the file is
// missing and opts.AllowMissing). The warnings list what was left out.
func WriteBundle(w io.Writer, kind BundleKind, a Assistant, opts BundleOptions) ([]string, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	warnings := []string{}
	// The manifest names no path of this machine: the importer places the
	// files in its own library.
	shared := a
	shared.Knowledge = namesOnly(a.Knowledge)
	m := BundleManifest{Format: BundleFormat, Version: BundleVersion, Exported: opts.Now().UTC(), Assistant: shared, Files: []BundleFile{}}
	for i, k := range a.Knowledge {
		bf := BundleFile{Knowledge: i, SHA256: k.SHA256, Size: k.Size}
		st, err := os.Stat(k.Path)
		switch {
		case k.Path != "" && !opts.Library.Owns(k) && err == nil:
			// A record from before the library: its path was chosen by
			// whatever made it, maybe an import. Not read.
			if !opts.AllowMissing {
				return nil, &MissingKnowledgeError{Name: k.Name, Path: k.Path, NotOwn: true}
			}
			bf.Missing = true
			warnings = append(warnings, fmt.Sprintf("knowledge %q: %s is not rehome's own copy; the bundle keeps the reference without the file (attach it again to carry it)", k.Name, k.Path))
		case k.Path == "" || k.SHA256 == "" || errors.Is(err, os.ErrNotExist):
			if !opts.AllowMissing {
				return nil, &MissingKnowledgeError{Name: k.Name, Path: k.Path}
			}
			bf.Missing = true
			warnings = append(warnings, fmt.Sprintf("knowledge %q: not at %q; the bundle keeps the reference without the file", k.Name, k.Path))
		case err != nil:
			return nil, fmt.Errorf("knowledge %q: %w", k.Name, err)
		case !st.Mode().IsRegular():
			return nil, fmt.Errorf("knowledge %q: %s is not a regular file", k.Name, k.Path)
		case st.Size() != k.Size:
			return nil, fmt.Errorf("knowledge %q: %s has changed since it was attached (%d bytes, was %d): attach it again", k.Name, k.Path, st.Size(), k.Size)
		default:
			bf.Entry = entryName(k)
		}
		m.Files = append(m.Files, bf)
	}
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	aw, err := newArchiveWriter(w, kind)
	if err != nil {
		return nil, err
	}
	if err := aw.add(bundleManifest, int64(len(manifest)), m.Exported, bytes.NewReader(manifest)); err != nil {
		return nil, err
	}
	written := map[string]bool{}
	for _, bf := range m.Files {
		if bf.Missing || written[bf.Entry] {
			continue
		}
		written[bf.Entry] = true
		k := a.Knowledge[bf.Knowledge]
		if err := addKnowledge(aw, bf, k, m.Exported); err != nil {
			return nil, err
		}
	}
	return warnings, aw.close()
}

func addKnowledge(aw *archiveWriter, bf BundleFile, k KnowledgeFile, mod time.Time) error {
	f, err := os.Open(k.Path)
	if err != nil {
		return fmt.Errorf("knowledge %q: %w", k.Name, err)
	}
	defer f.Close()
	h := sha256.New()
	if err := aw.add(bf.Entry, bf.Size, mod, io.TeeReader(f, h)); err != nil {
		return fmt.Errorf("knowledge %q: %w", k.Name, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != k.SHA256 {
		return fmt.Errorf("knowledge %q: %s has changed since it was attached (sha256 now %.12s…, was %.12s…): attach it again", k.Name, k.Path, got, k.SHA256)
	}
	return nil
}

type archiveWriter struct {
	gz *gzip.Writer
	tw *tar.Writer
	zw *zip.Writer
}

func newArchiveWriter(w io.Writer, kind BundleKind) (*archiveWriter, error) {
	switch kind {
	case TarGz:
		gz := gzip.NewWriter(w)
		return &archiveWriter{gz: gz, tw: tar.NewWriter(gz)}, nil
	case Zip:
		return &archiveWriter{zw: zip.NewWriter(w)}, nil
	}
	return nil, fmt.Errorf("bundle format %q: use tar.gz or zip", kind)
}

func (a *archiveWriter) add(name string, size int64, mod time.Time, r io.Reader) error {
	if a.tw != nil {
		hdr := &tar.Header{Name: name, Mode: 0o644, Size: size, ModTime: mod, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := a.tw.WriteHeader(hdr); err != nil {
			return err
		}
		n, err := io.Copy(a.tw, io.LimitReader(r, size+1))
		if err == nil && n != size {
			err = fmt.Errorf("read %d bytes, expected %d: the file changed while it was exported", n, size)
		}
		return err
	}
	w, err := a.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mod})
	if err != nil {
		return err
	}
	n, err := io.Copy(w, io.LimitReader(r, size+1))
	if err == nil && n != size {
		err = fmt.Errorf("read %d bytes, expected %d: the file changed while it was exported", n, size)
	}
	return err
}

func (a *archiveWriter) close() error {
	if a.tw != nil {
		if err := a.tw.Close(); err != nil {
			return err
		}
		return a.gz.Close()
	}
	return a.zw.Close()
}

// checkEntryName refuses names that could land outside the destination:
// absolute paths, "..", backslashes, and anything not in canonical form.
func checkEntryName(name string) error {
	if name == "" || strings.Contains(name, `\`) || path.IsAbs(name) || filepath.IsAbs(name) ||
		strings.HasPrefix(name, "/") || (len(name) > 1 && name[1] == ':') {
		return fmt.Errorf("%w: entry %q has an absolute or Windows path: refused", ErrBadBundle, name)
	}
	clean := path.Clean(strings.TrimSuffix(name, "/"))
	if clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(name, "/../") || strings.HasSuffix(name, "/..") || !filepath.IsLocal(clean) {
		return fmt.Errorf("%w: entry %q climbs out of the bundle with \"..\": refused", ErrBadBundle, name)
	}
	if clean != strings.TrimSuffix(name, "/") {
		return fmt.Errorf("%w: entry %q is not a plain path: refused", ErrBadBundle, name)
	}
	return nil
}

// Restore stores an assistant from a bundle as it was: its id (when no
// stored assistant has it yet; else a new one, with a warning), its
// timestamps and every field.
func (s *Service) Restore(a Assistant) (Assistant, []string, error) {
	warnings := withoutAllowance(&a)
	a.Normalize()
	if err := a.Validate(); err != nil {
		return Assistant{}, nil, err
	}
	if err := s.lib.checkKnowledge(a, nil); err != nil {
		return Assistant{}, nil, err
	}
	a.Schema = SchemaVersion
	if a.ID == "" {
		a.ID = store.NewID()
	} else if _, err := s.Get(a.ID); err == nil {
		old := a.ID
		a.ID = store.NewID()
		warnings = append(warnings, fmt.Sprintf("an assistant with id %s is already stored; the import got the new id %s", old, a.ID))
	} else if !errors.Is(err, store.ErrNotFound) {
		return Assistant{}, nil, err
	}
	now := s.now().UTC()
	if a.Created.IsZero() {
		a.Created = now
	}
	if a.Updated.IsZero() {
		a.Updated = a.Created
	}
	if err := s.st.Put(store.Assistants, a.ID, a); err != nil {
		return Assistant{}, nil, err
	}
	return a, warnings, nil
}

// ImportBundle reads a bundle, its knowledge files placed in the
// service's library (as ReadBundle says), and restores the assistant.
func (s *Service) ImportBundle(file string) (Imported, error) {
	u, err := ReadBundle(file, s.lib.Dir())
	if err != nil {
		return Imported{}, err
	}
	a, warnings, err := s.Restore(u.Assistant)
	if err != nil {
		for _, p := range u.Extracted {
			os.Remove(p)
		}
		return Imported{}, err
	}
	w := append(u.Warnings, warnings...)
	for _, p := range u.Extracted {
		w = append(w, "knowledge file written to "+p)
	}
	return Imported{Assistant: a, Warnings: w}, nil
}

// IsBundle reports whether the file at path starts like a bundle archive
// (gzip or zip).
func IsBundle(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	n, _ := io.ReadFull(f, magic[:])
	return (n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) || (n == 4 && string(magic[:]) == "PK\x03\x04")
}

// MissingKnowledgeError is a bundle that cannot be made because a
// knowledge file is not where it was attached. Attaching it again fixes
// it; a face that offers it can also leave the file out
// (BundleOptions.AllowMissing).
type MissingKnowledgeError struct {
	Name, Path string
	// NotOwn: a file is there, but it is not rehome's own copy (a record
	// from before the knowledge library), so it is not read.
	NotOwn bool
}

// Error says which file is missing and where it was.
func (e *MissingKnowledgeError) Error() string {
	if e.NotOwn {
		return fmt.Sprintf("knowledge %q: %s is not rehome's own copy of the file: attach it again", e.Name, e.Path)
	}
	return fmt.Sprintf("knowledge %q: the file is not at %q: attach it again", e.Name, e.Path)
}
