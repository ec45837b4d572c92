package knowledge

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"rehome/backend/ids"
)

// legacyBlobs is the folder where rehome before the shared library kept
// a second copy of each knowledge file, <dir>/blobs/<sha256>.
const legacyBlobs = "blobs"

// migrate folds a data folder made before the library was the one copy:
// each manifest's file then named <dir>/blobs/<sha256> (its Path) and
// the library copy it was read from (its Source). Each file now names
// the library's copy — the blob moved there when the library has none —
// its Source is cleared (it named rehome's own copy, not where the user
// added it from), and the blobs left over go with their folder. Nothing
// the manifests name is lost: a blob is removed only once its bytes are
// in the library.
func (s *Service) migrate() error {
	blobs := filepath.Join(s.dir, legacyBlobs)
	st, err := os.Lstat(blobs)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil && !st.IsDir() {
		// A link (the data folder came from elsewhere) may name any
		// folder here: nothing is moved out of it, the link goes.
		return os.Remove(blobs)
	}
	dirs, err := os.ReadDir(filepath.Join(s.dir, "assistants"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, d := range dirs {
		if !d.IsDir() || !safeID.MatchString(d.Name()) {
			continue
		}
		if err := s.migrateManifest(filepath.Join(s.dir, "assistants", d.Name()), blobs); err != nil {
			return fmt.Errorf("move the knowledge of assistant %s into the library: %w (the old copies in %s are kept)", d.Name(), err, blobs)
		}
	}
	// Every named blob is in the library now: what is left is a copy no
	// manifest names.
	return os.RemoveAll(blobs)
}

func (s *Service) migrateManifest(dir, blobs string) error {
	p := filepath.Join(dir, "files.json")
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	m := &manifest{}
	if err := json.Unmarshal(data, m); err != nil {
		return fmt.Errorf("the knowledge list %s is damaged (%v)", p, err)
	}
	changed := false
	for i := range m.Files {
		f := &m.Files[i]
		if !ids.IsSHA256(f.SHA256) {
			continue
		}
		// Source named the library's copy <dir>/<sha256>/<name>.
		if filepath.Base(filepath.Dir(f.Source)) == f.SHA256 {
			f.Source, changed = "", true
		}
		lib := s.lib.CopyOf(f.SHA256)
		if lib == "" {
			blob := filepath.Join(blobs, f.SHA256)
			// Only a regular file is moved: a link (the folder came from
			// elsewhere) would bring whatever it names into the library,
			// and the chmod below would change that file.
			if st, err := os.Lstat(blob); err != nil || !st.Mode().IsRegular() {
				continue // neither copy: the file says so when read
			}
			var err error
			if lib, err = s.lib.Place(f.SHA256, f.Name); err != nil {
				return err
			}
			if err := os.Rename(blob, lib); err != nil {
				return err
			}
			os.Chmod(lib, 0o600)
		}
		if f.Path != lib {
			f.Path, changed = lib, true
		}
	}
	if !changed {
		return nil
	}
	return s.save(dir, m)
}
