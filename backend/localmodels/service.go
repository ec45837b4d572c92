package localmodels

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"

	"rehome/backend/atomicfile"
	"rehome/backend/progressio"
	"rehome/backend/store"
)

// Service registers carried models in one data folder's database.
type Service struct {
	st  *store.Store
	dir string // <data>/models: rehome's copies
}

// NewService keeps records in st and copies under dataDir/models.
func NewService(st *store.Store, dataDir string) *Service {
	return &Service{st: st, dir: filepath.Join(dataDir, "models")}
}

// AddOptions say how a file is registered.
type AddOptions struct {
	// Name overrides the file's name without .gguf.
	Name string
	// Copy keeps rehome's own copy under <data>/models, so the model keeps
	// working when the carried file (a USB stick) goes away.
	Copy bool
	// Progress is told how many bytes were hashed or copied so far.
	Progress func(done, total int64)
	// Embedding marks the model an embedding model when no key of its
	// header says so (the user knows it is one).
	Embedding bool
	// MMProj is the model's image projector (see projector.go); "" looks
	// for one beside the model file.
	MMProj string
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:+-]{0,127}$`)

// Add checks path, hashes it and registers it (copied, with Copy).
func (s *Service) Add(ctx context.Context, path string, o AddOptions) (Model, error) {
	m, err := Inspect(path)
	if err != nil {
		return Model{}, err
	}
	if o.Name != "" {
		m.Name = o.Name
	}
	if o.Embedding && !m.Embedding {
		// No key said so, so the attention is causal: its last token
		// has read the whole text.
		m.Embedding, m.EmbeddingBy, m.Pooling = true, "you", "last"
	}
	proj, named := o.MMProj, o.MMProj != ""
	if !named && !m.Embedding {
		proj = besideProjector(m.Path)
	}
	if proj != "" {
		if m.MMProj, m.MMProjSize, err = inspectProjector(proj); err != nil {
			if named {
				return Model{}, err
			}
			m.MMProj, m.MMProjSize = "", 0 // a file beside it that is not one: left alone
		}
	}
	if !nameRE.MatchString(m.Name) {
		return Model{}, fmt.Errorf("%q cannot name a model: use letters, digits and . _ : + - (give another with --name)", m.Name)
	}
	var existing Model
	if err := s.st.Get(store.Models, m.Name, &existing); err == nil {
		return Model{}, fmt.Errorf("%w: %s (%s); remove it with `rehome models rm %s` or give another --name", ErrExists, m.Name, existing.Path, m.Name)
	} else if !errors.Is(err, store.ErrNotFound) {
		return Model{}, err
	}
	progress := o.Progress
	if progress == nil {
		progress = func(int64, int64) {}
	}
	if o.Copy {
		if err := os.MkdirAll(s.dir, 0o700); err != nil {
			return Model{}, fmt.Errorf("create %s: %w", s.dir, err)
		}
		sum, dst, err := s.copyIn(ctx, m.Path, m.Size, progress)
		if err != nil {
			return Model{}, err
		}
		m.SHA256, m.Path, m.Copied = sum, dst, true
		if m.MMProj != "" {
			if _, m.MMProj, err = s.copyIn(ctx, m.MMProj, m.MMProjSize, progress); err != nil {
				return Model{}, err
			}
		}
	} else {
		sum, err := hashCtx(ctx, m.Path, m.Size, progress)
		if err != nil {
			return Model{}, err
		}
		m.SHA256 = sum
	}
	m.Added = time.Now().UTC()
	if err := s.st.Put(store.Models, m.Name, m); err != nil {
		return Model{}, err
	}
	return m, nil
}

// copyIn copies src to <dir>/<sha256>.gguf, hashing as it goes; a copy of
// the same content there already is kept as it is.
func (s *Service) copyIn(ctx context.Context, src string, size int64, progress func(int64, int64)) (string, string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", "", err
	}
	defer in.Close()
	f, err := atomicfile.New(filepath.Join(s.dir, "incoming.gguf"), 0o600)
	if err != nil {
		return "", "", err
	}
	defer f.Cleanup()
	h := newHasher()
	if _, err := io.Copy(io.MultiWriter(f, h), &progressio.Reader{Ctx: ctx, R: in, Total: size, Progress: progress}); err != nil {
		return "", "", fmt.Errorf("copy %s: %w", src, err)
	}
	sum := h.sum()
	dst := filepath.Join(s.dir, sum+".gguf")
	if err := f.CommitAs(dst); err != nil {
		return "", "", err
	}
	return sum, dst, nil
}

// List returns the carried models by name.
func (s *Service) List() ([]Model, error) {
	all, err := store.List[Model](s.st, store.Models, 0)
	if err != nil {
		return nil, err
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all, nil
}

// Get returns the model called name.
func (s *Service) Get(name string) (Model, error) {
	var m Model
	if err := s.st.Get(store.Models, name, &m); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return Model{}, fmt.Errorf("%w: %q (see `rehome models local`; add one with `rehome models add FILE.gguf`)", ErrNotFound, name)
		}
		return Model{}, err
	}
	return m, nil
}

// Check says whether the registered file is still there, as long as it
// was (the hash is not read again: gigabytes).
func (m Model) Check() error {
	st, err := os.Stat(m.Path)
	if err != nil {
		return fmt.Errorf("%w: %s is gone (%v); carry it again and `rehome models rm %s` then `rehome models add` it, or add it with --copy", ErrMissing, m.Path, err, m.Name)
	}
	if st.Size() != m.Size {
		return fmt.Errorf("%w: %s is %d bytes, registered as %d; add it again", ErrMissing, m.Path, st.Size(), m.Size)
	}
	if m.MMProj != "" {
		if st, err := os.Stat(m.MMProj); err != nil || st.Size() != m.MMProjSize {
			return fmt.Errorf("%w: the image projector %s is gone or changed; carry it again and add the model again (`rehome models add MODEL.gguf --mmproj MMPROJ.gguf`)", ErrMissing, m.MMProj)
		}
	}
	return nil
}

// Remove forgets the model called name and deletes rehome's copy of it
// (never the user's own file).
func (s *Service) Remove(name string) (Model, error) {
	m, err := s.Get(name)
	if err != nil {
		return Model{}, err
	}
	if err := s.st.Delete(store.Models, name); err != nil {
		return Model{}, err
	}
	if m.Copied && filepath.Dir(m.Path) == s.dir {
		if err := os.Remove(m.Path); err != nil && !os.IsNotExist(err) {
			return m, fmt.Errorf("forgot %s, but could not delete its copy %s: %w", name, m.Path, err)
		}
	}
	return m, nil
}

// Measure stores what a run of the model measured.
func (s *Service) Measure(name string, ms Measured) error {
	var m Model
	return s.st.Modify(store.Models, name, &m, func() error {
		m.Measured = &ms
		return nil
	})
}
