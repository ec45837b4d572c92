package assistant

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"rehome/backend/atomicfile"
	"rehome/backend/bytesize"
	"rehome/backend/ids"
)

// Unbundled is a read bundle: the assistant with its knowledge references
// pointing at files on this machine.
type Unbundled struct {
	Assistant Assistant `json:"assistant"`
	Warnings  []string  `json:"warnings"`
	// Extracted lists the knowledge files written into the destination.
	Extracted []string `json:"extracted"`
}

// ReadBundle reads the bundle at file, checks every entry and hash, and
// writes the knowledge files into the library at destDir as <sha256>
// (reusing an identical one already there); the assistant's references
// point there, whatever path the manifest named. Links, devices, absolute
// paths and ".." entries are refused, and so is anything the manifest
// does not list, a file over MaxKnowledgeBytes, files over MaxBundleBytes
// together, and an archive that inflates past MaxInflation.
func ReadBundle(file, destDir string) (Unbundled, error) {
	f, err := os.Open(file)
	if err != nil {
		return Unbundled{}, fmt.Errorf("open bundle: %w", err)
	}
	defer f.Close()
	var magic [4]byte
	n, _ := io.ReadFull(f, magic[:])
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Unbundled{}, err
	}
	r := &bundleReader{destDir: destDir, placed: map[string]string{}, seen: map[string]bool{}}
	cf := &countingFile{f: f}
	r.compressed = &cf.n
	switch {
	case n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		err = r.readTarGz(cf)
	case n == 4 && string(magic[:]) == "PK\x03\x04":
		st, serr := f.Stat()
		if serr != nil {
			return Unbundled{}, serr
		}
		err = r.readZip(cf, st.Size())
	default:
		return Unbundled{}, fmt.Errorf("%w: %s is neither a .tar.gz nor a .zip", ErrBadBundle, file)
	}
	if err != nil {
		r.cleanup()
		return Unbundled{}, err
	}
	return r.finish()
}

type bundleReader struct {
	destDir  string
	manifest *BundleManifest
	want     map[string]BundleFile // entry → file, from the manifest
	placed   map[string]string     // entry → path on this machine
	seen     map[string]bool       // entries read so far
	created  []string              // files this read wrote, removed on failure
	// createdDirs are the library's folders this read made.
	createdDirs []string
	entries     int
	// compressed counts the archive's bytes read; inflated the knowledge
	// bytes they gave.
	compressed *int64
	inflated   int64
}

func (r *bundleReader) readManifest(rd io.Reader) error {
	data, err := io.ReadAll(io.LimitReader(rd, maxManifest+1))
	if err != nil {
		return fmt.Errorf("%w: read %s: %v", ErrBadBundle, bundleManifest, err)
	}
	if len(data) > maxManifest {
		return fmt.Errorf("%w: %s is larger than %d MiB", ErrBadBundle, bundleManifest, maxManifest>>20)
	}
	var m BundleManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrBadBundle, bundleManifest, err)
	}
	if m.Format != BundleFormat {
		return fmt.Errorf("%w: %s is not a rehome bundle manifest (format %q)", ErrBadBundle, bundleManifest, m.Format)
	}
	if m.Version > BundleVersion {
		return fmt.Errorf("%w: bundle version %d was written by a newer rehome: upgrade rehome to import it", ErrBadBundle, m.Version)
	}
	r.want = map[string]BundleFile{}
	if len(m.Files) > MaxBundleFiles {
		return fmt.Errorf("%w: it lists %d knowledge files, more than the %d a bundle may carry", ErrBadBundle, len(m.Files), MaxBundleFiles)
	}
	var total int64
	for i, bf := range m.Files {
		if bf.Knowledge < 0 || bf.Knowledge >= len(m.Assistant.Knowledge) {
			return fmt.Errorf("%w: files[%d] points at knowledge %d, which the assistant does not have", ErrBadBundle, i, bf.Knowledge)
		}
		k := m.Assistant.Knowledge[bf.Knowledge]
		if bf.SHA256 != k.SHA256 || bf.Size != k.Size {
			return fmt.Errorf("%w: files[%d] disagrees with the assistant's knowledge %q", ErrBadBundle, i, k.Name)
		}
		if bf.Missing {
			continue
		}
		if !ids.IsSHA256(bf.SHA256) || bf.Size < 0 || bf.Entry != entryName(k) {
			return fmt.Errorf("%w: files[%d] (%q) has a bad hash, size or entry name", ErrBadBundle, i, k.Name)
		}
		if bf.Size > MaxKnowledgeBytes {
			return fmt.Errorf("%w: knowledge %q is %s, more than the %s a knowledge file may hold: nothing was written", ErrBadBundle, k.Name, bytesize.Format(bf.Size), bytesize.Format(MaxKnowledgeBytes))
		}
		if _, dup := r.want[bf.Entry]; !dup {
			total += bf.Size
		}
		if total > MaxBundleBytes {
			return fmt.Errorf("%w: its knowledge files hold more than the %s a bundle may carry: nothing was written", ErrBadBundle, bytesize.Format(MaxBundleBytes))
		}
		r.want[bf.Entry] = bf
	}
	r.manifest = &m
	return nil
}

// entry handles one archive entry; dir and regular say what it is.
func (r *bundleReader) entry(name string, dir, regular bool, open func() (io.Reader, error)) error {
	r.entries++
	if r.entries > maxEntries {
		return fmt.Errorf("%w: more than %d entries", ErrBadBundle, maxEntries)
	}
	if err := checkEntryName(name); err != nil {
		return err
	}
	if dir {
		if strings.TrimSuffix(name, "/")+"/" != bundleDir {
			return fmt.Errorf("%w: unexpected folder %q", ErrBadBundle, name)
		}
		return nil
	}
	if !regular {
		return fmt.Errorf("%w: entry %q is a link or special file: refused", ErrBadBundle, name)
	}
	if name == bundleManifest {
		if r.manifest != nil {
			return fmt.Errorf("%w: %s appears twice", ErrBadBundle, bundleManifest)
		}
		rd, err := open()
		if err != nil {
			return err
		}
		return r.readManifest(rd)
	}
	if r.manifest == nil {
		return fmt.Errorf("%w: %s must come first, before %q", ErrBadBundle, bundleManifest, name)
	}
	bf, ok := r.want[name]
	if !ok {
		return fmt.Errorf("%w: entry %q is not in the manifest: refused", ErrBadBundle, name)
	}
	if r.seen[name] {
		return fmt.Errorf("%w: entry %q appears twice", ErrBadBundle, name)
	}
	r.seen[name] = true
	rd, err := open()
	if err != nil {
		return err
	}
	return r.extract(&inflateGuard{r: rd, br: r}, bf, name)
}

func (r *bundleReader) verify(rd io.Reader, bf BundleFile, w io.Writer) error {
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(h, w), io.LimitReader(rd, bf.Size+1))
	if err != nil {
		return fmt.Errorf("%w: read %s: %v", ErrBadBundle, bf.Entry, err)
	}
	if n != bf.Size {
		return fmt.Errorf("%w: %s holds %d bytes, the manifest says %d", ErrBadBundle, bf.Entry, n, bf.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != bf.SHA256 {
		return fmt.Errorf("%w: %s does not match its sha256 (got %.12s…, want %.12s…): the bundle is damaged", ErrBadBundle, bf.Entry, got, bf.SHA256)
	}
	return nil
}

func (r *bundleReader) extract(rd io.Reader, bf BundleFile, name string) error {
	if err := os.MkdirAll(r.destDir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", r.destDir, err)
	}
	lib := NewLibrary(r.destDir)
	dir, made, err := lib.hashFolder(bf.SHA256)
	if err != nil {
		return err
	}
	if made {
		r.createdDirs = append(r.createdDirs, dir)
	}
	final := filepath.Join(dir, safeName(strings.TrimPrefix(name, bundleDir+bf.SHA256+"-")))
	if have := NewLibrary(r.destDir).copyOf(bf.SHA256, bf.Size); have != "" {
		final = have
	}
	if got, err := HashFile(final); err == nil && got.SHA256 == bf.SHA256 {
		// An identical file is already there, from an earlier import.
		r.placed[name] = final
		return r.verify(rd, bf, io.Discard)
	}
	f, err := atomicfile.New(final, 0o600)
	if err != nil {
		return fmt.Errorf("write into %s: %w", r.destDir, err)
	}
	defer f.Cleanup()
	bw := bufio.NewWriter(f)
	err = r.verify(rd, bf, bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return err
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("place %s: %w", final, err)
	}
	r.created = append(r.created, final)
	r.placed[name] = final
	return nil
}

func (r *bundleReader) cleanup() {
	for _, p := range r.created {
		os.Remove(p)
	}
	for _, d := range r.createdDirs {
		os.Remove(d) // only when empty
	}
}

func (r *bundleReader) readTarGz(f io.Reader) error {
	gz, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadBundle, err)
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %v (is the file cut short?)", ErrBadBundle, err)
		}
		dir := hdr.Typeflag == tar.TypeDir
		regular := hdr.Typeflag == tar.TypeReg
		if err := r.entry(hdr.Name, dir, regular, func() (io.Reader, error) { return tr, nil }); err != nil {
			return err
		}
	}
}

func (r *bundleReader) readZip(f io.ReaderAt, size int64) error {
	zr, err := zip.NewReader(f, size)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadBundle, err)
	}
	// The manifest first, wherever it sits in the zip.
	files := slices.Clone(zr.File)
	slices.SortStableFunc(files, func(a, b *zip.File) int {
		switch {
		case a.Name == bundleManifest && b.Name != bundleManifest:
			return -1
		case b.Name == bundleManifest && a.Name != bundleManifest:
			return 1
		}
		return 0
	})
	for _, zf := range files {
		mode := zf.Mode()
		dir := mode.IsDir()
		regular := mode.IsRegular()
		var rc io.ReadCloser
		err := r.entry(zf.Name, dir, regular, func() (io.Reader, error) {
			var err error
			rc, err = zf.Open()
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrBadBundle, zf.Name, err)
			}
			return rc, nil
		})
		if rc != nil {
			rc.Close()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *bundleReader) finish() (Unbundled, error) {
	if r.manifest == nil {
		return Unbundled{}, fmt.Errorf("%w: no %s in the archive", ErrBadBundle, bundleManifest)
	}
	out := Unbundled{Assistant: r.manifest.Assistant, Warnings: []string{}, Extracted: []string{}}
	out.Assistant.Knowledge = slices.Clone(out.Assistant.Knowledge)
	for i := range out.Assistant.Knowledge {
		// Whatever path the manifest named: only what this read placed in
		// the library is pointed at.
		out.Assistant.Knowledge[i].Path = ""
	}
	for _, bf := range r.manifest.Files {
		k := &out.Assistant.Knowledge[bf.Knowledge]
		if bf.Missing {
			out.Warnings = append(out.Warnings, fmt.Sprintf("knowledge %q: the bundle has no copy of it (it was missing when exported); the reference is kept", k.Name))
			continue
		}
		p, ok := r.placed[bf.Entry]
		if !ok {
			r.cleanup()
			return Unbundled{}, fmt.Errorf("%w: %s is listed in the manifest but not in the archive", ErrBadBundle, bf.Entry)
		}
		k.Path = p
	}
	out.Extracted = append(out.Extracted, r.created...)
	return out, nil
}

// countingFile counts the bytes read from a bundle, by either reader.
type countingFile struct {
	f *os.File
	n int64
}

func (c *countingFile) Read(p []byte) (int, error) {
	n, err := c.f.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.f.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// inflateGuard stops a knowledge entry once the bundle has inflated past
// MaxInflation times the archive bytes read.
type inflateGuard struct {
	r  io.Reader
	br *bundleReader
}

func (g *inflateGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.br.inflated += int64(n)
	if c := *g.br.compressed; g.br.inflated > ratioFloor && g.br.inflated > MaxInflation*c {
		return n, fmt.Errorf("%w: it inflates more than %d times its size (%s from %s): refused as a decompression bomb", ErrBadBundle, MaxInflation, bytesize.Format(g.br.inflated), bytesize.Format(c))
	}
	return n, err
}
