package knowledge

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rehome/backend/ids"
)

// hold keeps the library's copy of sum while an Add records it.
func (s *Service) hold(sum string) {
	s.mu.Lock()
	s.adding[sum]++
	s.mu.Unlock()
}

// release ends the holds of an Add.
func (s *Service) release(sums []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sum := range sums {
		if s.adding[sum]--; s.adding[sum] <= 0 {
			delete(s.adding, sum)
		}
	}
}

// releaseOne ends one hold of sum among an Add's holds and returns the
// others.
func (s *Service) releaseOne(held []string, sum string) []string {
	for i, h := range held {
		if h == sum {
			s.release([]string{sum})
			return append(held[:i:i], held[i+1:]...)
		}
	}
	return held
}

// Held is the hashes of the bytes the assistants' knowledge names, and
// those an Add in progress is copying: the library copies to keep. A
// manifest that cannot be read is an error (then keep everything).
func (s *Service) Held() (map[string]bool, error) {
	held := map[string]bool{}
	s.mu.Lock()
	for sum := range s.adding {
		held[sum] = true
	}
	s.mu.Unlock()
	dirs, err := os.ReadDir(filepath.Join(s.dir, "assistants"))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	for _, d := range dirs {
		m, _, err := s.load(d.Name())
		if err != nil {
			return nil, err
		}
		for _, f := range m.Files {
			if f.State != StateFailed { // a file not indexed keeps no copy
				held[f.SHA256] = true
			}
		}
	}
	return held, nil
}

// DropIfUnused removes the library's copy of sum when no assistant's
// knowledge names it, no Add is copying it and nothing else uses it
// (Options.InUse).
func (s *Service) DropIfUnused(sum string) {
	if !ids.IsSHA256(sum) {
		return
	}
	if held, err := s.Held(); err != nil || held[sum] || s.inUse(sum) {
		return
	}
	os.RemoveAll(filepath.Join(s.dir, sum))
}

// Find is the assistant's file ref names: its name as listed, the start
// of its SHA-256 (at least 4 hex digits), or its name without case or
// extension when that fits one file. A ref that fits several says which
// (ErrAmbiguous); one that fits none, ErrNotFound.
func (s *Service) Find(id, ref string) (File, error) {
	m, _, err := s.load(id)
	if err != nil {
		return File{}, err
	}
	return resolve(m, id, ref)
}

func resolve(m *manifest, id, ref string) (File, error) {
	ref = strings.TrimSpace(ref)
	for _, f := range m.Files {
		if f.Name == ref {
			return f, nil
		}
	}
	var fits []File
	if hex := strings.ToLower(ref); len(hex) >= 4 && strings.Trim(hex, "0123456789abcdef") == "" {
		for _, f := range m.Files {
			if strings.HasPrefix(f.SHA256, hex) {
				fits = append(fits, f)
			}
		}
	}
	if len(fits) == 0 {
		fits = loose(m, ref)
	}
	switch len(fits) {
	case 1:
		return fits[0], nil
	case 0:
		return File{}, fmt.Errorf("%w: %q (the files are: %s; see `rehome knowledge list %s`)", ErrNotFound, ref, names(m), id)
	}
	var which []string
	for _, f := range fits {
		w := fmt.Sprintf("%s (sha256 %s", f.Name, f.SHA256[:min(12, len(f.SHA256))])
		if f.Source != "" {
			w += ", from " + filepath.Dir(f.Source)
		}
		which = append(which, w+")")
	}
	return File{}, fmt.Errorf("%w: %q fits %d files: %s; give the name as listed or the start of its sha256", ErrAmbiguous, ref, len(fits), strings.Join(which, ", "))
}

// loose finds files by their name (or the name they were added with)
// without case or extension (models write "Manual" for manual.pdf).
func loose(m *manifest, ref string) []File {
	n := strings.ToLower(ref)
	var out []File
	for _, f := range m.Files {
		for _, name := range []string{f.Name, f.Original} {
			l := strings.ToLower(name)
			if l != "" && (l == n || strings.TrimSuffix(l, strings.ToLower(extOf(l))) == n) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// forgetEntry takes f out of m with its passages and vectors (m is saved
// by the caller).
func (s *Service) forgetEntry(id, dir string, m *manifest, f File) error {
	if f.Chunks > 0 {
		ix, err := s.index(id, dir)
		if err != nil {
			return err
		}
		if err := ix.drop(f.SHA256, f.Chunks); err != nil {
			return err
		}
		if err := dropVectors(dir, f.SHA256); err != nil {
			return err
		}
	}
	for i := range m.Files {
		if m.Files[i].Name == f.Name {
			m.Files = append(m.Files[:i], m.Files[i+1:]...)
			break
		}
	}
	return nil
}

// Remove takes the file ref names (see Find) out of the assistant's
// knowledge: its chunks, its entry, and rehome's copy when nothing uses
// it any more.
func (s *Service) Remove(id, ref string) (File, error) {
	defer s.lock(id)()
	m, dir, err := s.load(id)
	if err != nil {
		return File{}, err
	}
	f, err := resolve(m, id, ref)
	if err != nil {
		return File{}, err
	}
	if err := s.forgetEntry(id, dir, m, f); err != nil {
		return File{}, err
	}
	if err := s.save(dir, m); err != nil {
		return File{}, err
	}
	s.DropIfUnused(f.SHA256)
	return f, nil
}

// Forget removes all of an assistant's knowledge (the assistant was
// deleted), and the copies of its files nothing else uses.
func (s *Service) Forget(id string) error {
	defer s.lock(id)()
	m, dir, err := s.load(id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if ix := s.open[id]; ix != nil {
		ix.Close()
		delete(s.open, id)
	}
	s.mu.Unlock()
	if err := removeIndex(dir); err != nil {
		return err
	}
	for _, f := range m.Files {
		s.DropIfUnused(f.SHA256)
	}
	return nil
}
