package browse

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"rehome/backend/atomicfile"
	"rehome/backend/progressio"
	"rehome/backend/store"
)

// settingsID is the record of the Settings bucket that holds browsing's
// settings and the carried libraries.
const settingsID = "browsing"

// schema is the record's version.
const schema = 1

// Library is a carried ZIM file.
type Library struct {
	// Name is how rehome names it: in `rehome library`, in zim://NAME/…
	// addresses and in kiwix-serve's URLs.
	Name string `json:"name"`
	// Title, Description, Language, ZIMName and Articles are what the
	// ZIM's metadata says (through kiwix-serve's catalog).
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Language    string `json:"language,omitempty"`
	ZIMName     string `json:"zim_name,omitempty"`
	Articles    int    `json:"articles"`
	// FullText says whether the ZIM carries a full-text index (without
	// one kiwix-serve cannot search it).
	FullText bool `json:"full_text"`
	// Path is the file rehome serves: its own copy (Copied) or the user's.
	Path   string    `json:"path"`
	Copied bool      `json:"copied"`
	From   string    `json:"from"`
	Size   int64     `json:"size"`
	MD5    string    `json:"md5"`
	UUID   string    `json:"uuid"`
	Added  time.Time `json:"added"`
}

// Check says whether the library's file is still there, as long as it
// was (its checksum is not read again: gigabytes).
func (l Library) Check() error {
	st, err := os.Stat(l.Path)
	if err != nil {
		return fmt.Errorf("%w: %s (%s) is gone: carry it again, then `rehome library rm %s` and `rehome library add` it (with --copy rehome keeps its own)", ErrMissing, l.Name, l.Path, l.Name)
	}
	if st.Size() != l.Size {
		return fmt.Errorf("%w: %s is %d bytes, added as %d: add it again", ErrMissing, l.Path, st.Size(), l.Size)
	}
	return nil
}

// Settings are browsing's settings: the carried libraries, the search
// engine, whether the LAN may be fetched, whether the machine is
// air-gapped.
type Settings struct {
	Schema    int       `json:"schema"`
	Libraries []Library `json:"libraries"`
	// SearXNG is the address of a SearXNG instance whose JSON API
	// (/search?format=json) answers web searches.
	SearXNG string `json:"searxng_url,omitempty"`
	// BraveKey is a Brave Search API key (X-Subscription-Token); never
	// shown back.
	BraveKey string `json:"brave_key,omitempty"`
	// AllowLAN lets open_url fetch private and loopback addresses.
	AllowLAN bool `json:"allow_lan"`
	// AirGapped turns the web off: libraries alone.
	AirGapped bool `json:"air_gapped"`
}

// Engine names the search engine set ("" none): "searxng" or "brave".
func (s Settings) Engine() string {
	switch {
	case s.SearXNG != "":
		return "searxng"
	case s.BraveKey != "":
		return "brave"
	}
	return ""
}

// Web says whether the web is on: an engine is set and the machine is not
// air-gapped.
func (s Settings) Web() bool { return !s.AirGapped && s.Engine() != "" }

// Service keeps the carried libraries and browsing's settings, serves
// the libraries with kiwix-serve and searches them and the web.
type Service struct {
	st  *store.Store
	dir string // <data>/library
	// Kiwix runs kiwix-serve for the libraries.
	Kiwix *Runner
	// HTTP calls the search engine (nil: a client with Fetcher's guards).
	HTTP *http.Client
	// BraveURL is Brave's web search endpoint (tests point it elsewhere).
	BraveURL string

	fmu      sync.Mutex
	fetchers map[bool]*Fetcher
	// testPublic, in tests, counts a stand-in web's address as public.
	testPublic func(netip.AddrPort) bool
}

// LibraryDir is the data folder's folder of libraries.
const LibraryDir = "library"

// NewService keeps records in st and rehome's copies under
// dataDir/library; kiwix-serve logs to logDir/kiwix.log.
func NewService(st *store.Store, dataDir, logDir string) *Service {
	dir := filepath.Join(dataDir, LibraryDir)
	return &Service{st: st, dir: dir, BraveURL: BraveEndpoint,
		Kiwix: &Runner{LinkDir: filepath.Join(dir, "served"), LogPath: filepath.Join(logDir, "kiwix.log")}}
}

// Settings returns the saved settings (defaults when none are saved).
func (s *Service) Settings() (Settings, error) {
	v := Settings{Schema: schema}
	err := s.st.GetChecked(store.Settings, settingsID, &v, &v.Schema, schema)
	return v, err
}

// Modify changes the saved settings in one transaction.
func (s *Service) Modify(fn func(*Settings) error) (Settings, error) {
	var v Settings
	err := s.st.Upsert(store.Settings, settingsID, &v, func() { v = Settings{Schema: schema} }, func() error {
		if err := store.CheckSchema(store.Settings, settingsID, v.Schema, schema); err != nil {
			return err
		}
		v.Schema = schema
		return fn(&v)
	})
	return v, err
}

// AddOptions say how a ZIM file is registered.
type AddOptions struct {
	// Name overrides the name taken from the file's.
	Name string
	// Copy keeps rehome's own copy under <data>/library (the library
	// keeps working when the USB stick goes).
	Copy bool
	// Progress is told what is being done, and how many bytes of how many.
	Progress func(step string, done, total int64)
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// NameOf is the name a library takes from its file: the file's name
// without .zim, in lower case, other characters as '-'.
func NameOf(path string) string {
	n := strings.ToLower(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	n = regexp.MustCompile(`[^a-z0-9._-]+`).ReplaceAllString(n, "-")
	n = strings.Trim(n, "-._")
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

// Add checks path (the ZIM header and its MD5), reads its metadata
// through kiwix-serve, and registers it (copied, with Copy).
func (s *Service) Add(ctx context.Context, path string, o AddOptions) (Library, error) {
	progress := o.Progress
	if progress == nil {
		progress = func(string, int64, int64) {}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Library{}, err
	}
	name := o.Name
	if name == "" {
		name = NameOf(abs)
	}
	if !nameRE.MatchString(name) {
		return Library{}, fmt.Errorf("%q cannot name a library: use lower-case letters, digits and . _ - (give another with --name)", name)
	}
	cur, err := s.Settings()
	if err != nil {
		return Library{}, err
	}
	for _, l := range cur.Libraries {
		if l.Name == name {
			return Library{}, fmt.Errorf("%w: %s (%s); remove it with `rehome library rm %s` or give another --name", ErrExists, name, l.Path, name)
		}
	}
	h, size, sum, err := Verify(ctx, abs, func(d, t int64) { progress("checking", d, t) })
	if err != nil {
		return Library{}, err
	}
	for _, l := range cur.Libraries {
		if l.MD5 == sum {
			return Library{}, fmt.Errorf("%w: the same file is carried as %s (%s)", ErrExists, l.Name, l.Path)
		}
	}
	progress("reading its catalog", 0, 0)
	info, err := s.probe(ctx, name, abs)
	if err != nil {
		return Library{}, err
	}
	lib := Library{Name: name, Title: info.Title, Description: info.Description, Language: info.Language, ZIMName: info.Name,
		Articles: info.Articles, FullText: info.FullText, Path: abs, From: abs, Size: size, MD5: sum, UUID: h.UUID, Added: time.Now().UTC()}
	if lib.Title == "" {
		lib.Title = name
	}
	if o.Copy {
		dst, err := s.copyIn(ctx, abs, sum, size, func(d, t int64) { progress("copying", d, t) })
		if err != nil {
			return Library{}, err
		}
		lib.Path, lib.Copied = dst, true
	}
	if _, err := s.Modify(func(v *Settings) error {
		for _, l := range v.Libraries {
			if l.Name == name {
				return fmt.Errorf("%w: %s", ErrExists, name)
			}
		}
		v.Libraries = append(v.Libraries, lib)
		return nil
	}); err != nil {
		if lib.Copied {
			os.Remove(lib.Path)
		}
		return Library{}, err
	}
	return lib, nil
}

// probe serves the one file with a kiwix-serve of its own and reads what
// its catalog says (kiwix-serve opening it is a check too).
func (s *Service) probe(ctx context.Context, name, path string) (BookInfo, error) {
	bin, err := KiwixBinary()
	if err != nil {
		return BookInfo{}, err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return BookInfo{}, err
	}
	tmp, err := os.MkdirTemp(s.dir, "probe-*")
	if err != nil {
		return BookInfo{}, err
	}
	defer os.RemoveAll(tmp)
	k, err := StartKiwix(ctx, bin, filepath.Join(tmp, "served"), map[string]string{name: path}, "")
	if err != nil {
		return BookInfo{}, fmt.Errorf("kiwix-serve could not open %s: %w", path, err)
	}
	defer k.Stop()
	books, err := k.Catalog(ctx)
	if err != nil {
		return BookInfo{}, err
	}
	for _, b := range books {
		if b.URLName == name {
			return b, nil
		}
	}
	return BookInfo{}, fmt.Errorf("%w: kiwix-serve did not list %s (its log said nothing); is it a ZIM with articles?", ErrNoKiwix, path)
}

func (s *Service) copyIn(ctx context.Context, src, sum string, size int64, progress func(int64, int64)) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	dst := filepath.Join(s.dir, sum+".zim")
	f, err := atomicfile.New(dst, 0o600)
	if err != nil {
		return "", err
	}
	defer f.Cleanup()
	if _, err := io.Copy(f, &progressio.Reader{Ctx: ctx, R: in, Total: size, Progress: progress}); err != nil {
		return "", fmt.Errorf("copy %s: %w", src, err)
	}
	return dst, f.Commit()
}

// List returns the carried libraries, in the order they were added.
func (s *Service) List() ([]Library, error) {
	v, err := s.Settings()
	return v.Libraries, err
}

// Get returns the library called name.
func (s *Service) Get(name string) (Library, error) {
	libs, err := s.List()
	if err != nil {
		return Library{}, err
	}
	for _, l := range libs {
		if l.Name == name {
			return l, nil
		}
	}
	return Library{}, fmt.Errorf("%w: %q (see `rehome library list`; add one with `rehome library add FILE.zim`)", ErrNotFound, name)
}

// Remove forgets the library called name and deletes rehome's copy of it
// (never the user's own file).
func (s *Service) Remove(name string) (Library, error) {
	var gone Library
	if _, err := s.Modify(func(v *Settings) error {
		for i, l := range v.Libraries {
			if l.Name == name {
				gone = l
				v.Libraries = append(v.Libraries[:i], v.Libraries[i+1:]...)
				return nil
			}
		}
		return fmt.Errorf("%w: %q (see `rehome library list`)", ErrNotFound, name)
	}); err != nil {
		return Library{}, err
	}
	s.Kiwix.Close() // served again without it on the next use
	if gone.Copied && filepath.Dir(gone.Path) == s.dir {
		if err := os.Remove(gone.Path); err != nil && !os.IsNotExist(err) {
			return gone, fmt.Errorf("forgot %s, but could not delete its copy %s: %w", name, gone.Path, err)
		}
	}
	return gone, nil
}

// books are the libraries kiwix-serve can serve now (their files there)
// by name, and notes on those it cannot.
func books(libs []Library) (map[string]string, []string) {
	out := map[string]string{}
	var notes []string
	for _, l := range libs {
		if err := l.Check(); err != nil {
			notes = append(notes, err.Error())
			continue
		}
		out[l.Name] = l.Path
	}
	return out, notes
}

// Close stops kiwix-serve.
func (s *Service) Close() { s.Kiwix.Close() }
