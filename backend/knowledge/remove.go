package knowledge

import (
	"fmt"
	"os"
	"path/filepath"
)

// dropBlobIfUnused removes a blob no assistant's manifest names.
func (s *Service) dropBlobIfUnused(sum string) {
	dirs, _ := os.ReadDir(filepath.Join(s.dir, "assistants"))
	for _, d := range dirs {
		m, _, err := s.load(d.Name())
		if err != nil {
			return // unsure: keep it
		}
		for _, f := range m.Files {
			if f.SHA256 == sum {
				return
			}
		}
	}
	s.blobs.Remove(sum)
}

// Remove takes the file named name out of the assistant's knowledge:
// its chunks, its entry, and rehome's copy when no assistant uses it.
func (s *Service) Remove(id, name string) (File, error) {
	defer s.lock(id)()
	m, dir, err := s.load(id)
	if err != nil {
		return File{}, err
	}
	f, ok := find(m, name)
	if !ok {
		return File{}, fmt.Errorf("%w: %q (see `rehome knowledge list %s`)", ErrNotFound, name, id)
	}
	if f.Chunks > 0 {
		ix, err := s.index(id, dir)
		if err != nil {
			return File{}, err
		}
		if err := ix.drop(f.SHA256, f.Chunks); err != nil {
			return File{}, err
		}
		if err := dropVectors(dir, f.SHA256); err != nil {
			return File{}, err
		}
	}
	for i := range m.Files {
		if m.Files[i].Name == name {
			m.Files = append(m.Files[:i], m.Files[i+1:]...)
			break
		}
	}
	if err := s.save(dir, m); err != nil {
		return File{}, err
	}
	if f.SHA256 != "" {
		s.dropBlobIfUnused(f.SHA256)
	}
	return f, nil
}

// Forget removes all of an assistant's knowledge (the assistant was
// deleted).
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
		if f.SHA256 != "" {
			s.dropBlobIfUnused(f.SHA256)
		}
	}
	return nil
}
