package actions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/sys/unix"

	"rehome/backend/atomicfile"
)

// SecretsFile is the name of the credentials file in the data folder: a
// JSON file of mode 0600 (owner only), never part of the database, a
// bundle or an export. rehome does not use a desktop keyring: the window
// and the CLI run on machines without one (air-gapped, headless), and a
// file of one's own is what they have in common.
const SecretsFile = "action-secrets.json"

// Secret is one action's credentials.
type Secret struct {
	// Key is the API key (Basic: the encoded user:password; Bearer or a
	// custom header: the key itself).
	Key string `json:"key,omitempty"`
	// ClientSecret is the OAuth client's secret, when it has one.
	ClientSecret string `json:"client_secret,omitempty"`
	// Token is the OAuth token after sign-in (access and refresh).
	Token *oauth2.Token `json:"token,omitempty"`
}

// Secrets is the credentials file. Its methods are safe for concurrent
// use, in one process and across processes (a change holds the lock
// file beside it, SecretsFile + ".lock", with flock); each write
// replaces the file whole (atomicfile), so a read needs no lock.
type Secrets struct {
	path string
	mu   sync.Mutex
}

// NewSecrets returns the credentials kept in the data folder dir.
func NewSecrets(dir string) *Secrets {
	return &Secrets{path: filepath.Join(dir, SecretsFile)}
}

// Path is the file's path.
func (s *Secrets) Path() string { return s.path }

func (s *Secrets) load() (map[string]Secret, error) {
	m := map[string]Secret{}
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the action credentials %s: %w", s.path, err)
	}
	if fi, err := os.Stat(s.path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("the action credentials %s can be read by others (mode %o): run `chmod 600 %s`", s.path, fi.Mode().Perm(), s.path)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("the action credentials %s are damaged (%v): remove the file and add the keys again", s.path, err)
	}
	return m, nil
}

func (s *Secrets) save(m map[string]Secret) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(s.path, b, 0o600)
}

// lock takes the file's lock across processes (the window refreshing a
// token while a CLI `actions add` writes): a change is read, made and
// written under it. It is held for that moment only.
func (s *Secrets) lock() (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return nil, err
	}
	// Not through a link (a data folder copied from elsewhere): the
	// create would make the file it names, wherever that is.
	f, err := os.OpenFile(s.path+".lock", os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if errors.Is(err, unix.ELOOP) {
		return nil, fmt.Errorf("locking the action credentials %s: %s.lock is a link, not rehome's lock file: remove it and try again", s.path, s.path)
	}
	if err != nil {
		return nil, fmt.Errorf("locking the action credentials %s: %w", s.path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking the action credentials %s: %w", s.path, err)
	}
	return func() {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}

// Get returns the credentials under key; ok is false when there are none.
func (s *Secrets) Get(key string) (Secret, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return Secret{}, false, err
	}
	v, ok := m[key]
	return v, ok, nil
}

// Update changes the credentials under key with fn (given the stored
// ones, or zero) and writes the file.
func (s *Secrets) Update(key string, fn func(*Secret)) error {
	return s.change(func(m map[string]Secret) bool {
		v := m[key]
		fn(&v)
		m[key] = v
		return true
	})
}

// Delete removes the credentials under key.
func (s *Secrets) Delete(key string) error {
	return s.change(func(m map[string]Secret) bool {
		if _, ok := m[key]; !ok {
			return false
		}
		delete(m, key)
		return true
	})
}

// change loads the file under both locks, lets fn change the map, and
// writes it back when fn says it changed something.
func (s *Secrets) change(fn func(m map[string]Secret) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	m, err := s.load()
	if err != nil {
		return err
	}
	if !fn(m) {
		return nil
	}
	return s.save(m)
}

// Values are every stored secret in their forms to cut out of results
// (Secret.SecretValues of each entry): whatever action an API's answer
// came from, no key or token of this file reaches a kept or shown text.
func (s *Secrets) Values() ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, v := range m {
		out = append(out, v.SecretValues()...)
	}
	return out, nil
}
