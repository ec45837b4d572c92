package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"rehome/backend/assistant"
	"rehome/backend/atomicfile"
)

// Limits of one assistant's knowledge (ChatGPT's per file; 50 times its
// 20 files per GPT).
const (
	MaxFileBytes  = 512 << 20
	MaxFileTokens = 2_000_000
	MaxFiles      = 1000
)

// Options configure a Service.
type Options struct {
	// Run parses the files that need the sandbox; nil: only text files
	// can be indexed.
	Run Runner
	// Chunking is how text is cut (zero: 800 tokens, 400 overlap).
	Chunking Chunking
	// Embed, when set, embeds the chunks too (see vectors.go); without it
	// files are searched by BM25 alone (or with the embedding model they
	// were indexed with, when its server answers).
	Embed Embedder
	// InUse says whether something other than the knowledge indexes
	// (core: an assistant's record) still names the library's copy of
	// the bytes with that hash; nil: nothing else does.
	InUse func(sha256 string) bool
	// Sourceless says whether a path is a copy that tells nothing of
	// where the file came from (a browser's upload): the file is then
	// known by its name alone, and the same name again updates it.
	Sourceless func(path string) bool
}

// Service is the knowledge of every assistant in one data folder. The
// bytes of each file live once, in the assistants' knowledge library
// (assistant.Library: <dir>/<sha256>/<name>, the copy the sandbox mounts
// and a bundle carries); the index reads that copy. <dir>/assistants/<id>/
// holds an assistant's manifest (files.json), its bleve index
// (index.bleve) and its vectors.
type Service struct {
	dir      string
	lib      assistant.Library
	run      Runner
	chunking Chunking
	embed    Embedder
	inUse    func(string) bool
	noSource func(string) bool

	migrated sync.Once
	migErr   error

	mu   sync.Mutex
	open map[string]*textIndex
	// locks serialises the changes of one assistant's knowledge.
	locks map[string]*sync.Mutex
	// adding counts the copies an Add has made and not yet recorded
	// (never removed as unused meanwhile).
	adding map[string]int
}

// New returns the service over dir (the data folder's knowledge folder,
// which is also the assistants' knowledge library).
func New(dir string, opts Options) *Service {
	inUse := opts.InUse
	if inUse == nil {
		inUse = func(string) bool { return false }
	}
	noSource := opts.Sourceless
	if noSource == nil {
		noSource = func(string) bool { return false }
	}
	return &Service{dir: dir, lib: assistant.NewLibrary(dir), run: opts.Run, chunking: opts.Chunking.WithDefaults(), embed: opts.Embed,
		inUse: inUse, noSource: noSource, open: map[string]*textIndex{}, locks: map[string]*sync.Mutex{}, adding: map[string]int{}}
}

// File is one knowledge file of an assistant and what became of it.
type File struct {
	// Name is the file's name in the assistant's knowledge: the name it
	// was added with, or "guide (2).pdf" when another file of the same
	// name (other bytes, from another place) is there already.
	Name string `json:"name"`
	// Original is the name it was added with, when Name differs.
	Original string `json:"original,omitempty"`
	SHA256   string `json:"sha256"`
	Size     int64  `json:"size"`
	Format   string `json:"format"`
	// State is "indexed" or "failed" (Reason says why, in words).
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	Pages  int    `json:"pages,omitempty"`
	Chunks int    `json:"chunks"`
	Tokens int    `json:"tokens"`
	// Path is rehome's own copy (in the library); Source where it was
	// added from (an absolute path; "" for files added before rehome
	// kept it).
	Path   string    `json:"path"`
	Source string    `json:"source,omitempty"`
	Added  time.Time `json:"added"`
}

// States of a file.
const (
	StateIndexed = "indexed"
	StateFailed  = "failed"
)

// Result is what Add did with one file: "indexed", "reindexed" (it
// changed), "unchanged" (the same bytes again), "failed".
type Result struct {
	File
	Action string `json:"action"`
	// EmbeddedWith names the embedding model that embedded the file's
	// chunks this time; "" when it was indexed by keywords alone (or
	// left unchanged).
	EmbeddedWith string `json:"embedded_with,omitempty"`
	// Message says it in words, for the user.
	Message string `json:"message"`
}

// Progress is a step of Add: file Index (from 1) of Total at Stage
// ("copying", "reading", "indexing", "done" with its Result).
type Progress struct {
	Index  int     `json:"index"`
	Total  int     `json:"total"`
	File   string  `json:"file"`
	Stage  string  `json:"stage"`
	Result *Result `json:"result,omitempty"`
}

var safeID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)

func (s *Service) assistantDir(id string) (string, error) {
	if !safeID.MatchString(id) {
		return "", fmt.Errorf("%q is not an assistant id", id)
	}
	return filepath.Join(s.dir, "assistants", id), nil
}

type manifest struct {
	Schema   int      `json:"schema"`
	Chunking Chunking `json:"chunking"`
	Files    []File   `json:"files"`
}

func (s *Service) load(id string) (*manifest, string, error) {
	dir, err := s.assistantDir(id)
	if err != nil {
		return nil, "", err
	}
	s.migrated.Do(func() { s.migErr = s.migrate() })
	if s.migErr != nil {
		return nil, "", s.migErr
	}
	m := &manifest{Schema: 1, Chunking: s.chunking, Files: []File{}}
	data, err := os.ReadFile(filepath.Join(dir, "files.json"))
	if errors.Is(err, os.ErrNotExist) {
		return m, dir, nil
	}
	if err != nil {
		return nil, "", err
	}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, "", fmt.Errorf("the knowledge list %s is damaged (%v): remove the folder and add the files again", dir, err)
	}
	return m, dir, nil
}

func (s *Service) save(dir string, m *manifest) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, "files.json"), data, 0o600)
}

func (s *Service) lock(id string) func() {
	s.mu.Lock()
	l := s.locks[id]
	if l == nil {
		l = &sync.Mutex{}
		s.locks[id] = l
	}
	s.mu.Unlock()
	l.Lock()
	return l.Unlock
}

func (s *Service) index(id, dir string) (*textIndex, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ix := s.open[id]; ix != nil {
		return ix, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	ix, err := openIndex(filepath.Join(dir, "index.bleve"))
	if err != nil {
		return nil, err
	}
	s.open[id] = ix
	return ix, nil
}

// Close closes the open indexes.
func (s *Service) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var first error
	for id, ix := range s.open {
		if err := ix.Close(); err != nil && first == nil {
			first = err
		}
		delete(s.open, id)
	}
	return first
}

// List returns the assistant's knowledge files, by name.
func (s *Service) List(id string) ([]File, error) {
	m, _, err := s.load(id)
	if err != nil {
		return nil, err
	}
	return m.Files, nil
}

// Add copies each file into rehome's store and indexes it, reporting
// each step to progress (may be nil). A file that cannot be indexed gets
// its reason and the others still index. The same bytes again do
// nothing; a file whose bytes changed (same name) re-indexes alone. ctx
// ends it between steps and stops a parse in progress: the files done so
// far stay, and ctx's error is returned with their results.
func (s *Service) Add(ctx context.Context, id string, paths []string, progress func(Progress)) ([]Result, error) {
	if progress == nil {
		progress = func(Progress) {}
	}
	defer s.lock(id)()
	m, dir, err := s.load(id)
	if err != nil {
		return nil, err
	}
	out := []Result{}
	var held []string
	defer func() {
		s.release(held)
		if ctx.Err() != nil {
			// Stopped: the copy of the file it was reading is no one's
			// (nothing of a stopped file is kept); those of the files
			// done are in the manifest and stay.
			for _, sum := range held {
				s.DropIfUnused(sum)
			}
		}
	}()
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		name := listedName(filepath.Base(p))
		step := func(stage string, r *Result) {
			progress(Progress{Index: i + 1, Total: len(paths), File: name, Stage: stage, Result: r})
		}
		step("copying", nil)
		r, replaced := s.addOne(ctx, m, dir, id, p, step, &held)
		if ctx.Err() != nil && r.State == StateFailed {
			return out, ctx.Err()
		}
		if err := s.save(dir, m); err != nil {
			return out, err
		}
		if replaced != "" {
			s.DropIfUnused(replaced)
		}
		if r.State == StateFailed && r.SHA256 != "" {
			// A file not indexed keeps no copy: nothing reads it.
			held = s.releaseOne(held, r.SHA256)
			s.DropIfUnused(r.SHA256)
		}
		out = append(out, r)
		step("done", &r)
	}
	return out, nil
}

// oneLine is a reason as one clean line: a tool's error (pdfinfo writes
// two lines) or a parser's, with its line breaks, tabs and other control
// characters made spaces and its runs of spaces one, cut at 300 bytes.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
	return clip(strings.Join(strings.Fields(s), " "), 300)
}

// entryFor is the entry a file added from src under name updates: the
// one added from the same place, else (for files recorded before rehome
// kept where they came from) the one of that name.
func entryFor(m *manifest, name, src string) (File, bool) {
	for _, f := range m.Files {
		if src != "" && f.Source == src {
			return f, true
		}
	}
	for _, f := range m.Files {
		if f.Source == "" && f.Name == name {
			return f, true
		}
	}
	return File{}, false
}

// freeName is name, or "guide (2).pdf" and on when a file has it.
func freeName(m *manifest, name string) string {
	taken := func(n string) bool {
		for _, f := range m.Files {
			if strings.EqualFold(f.Name, n) {
				return true
			}
		}
		return false
	}
	if !taken(name) {
		return name
	}
	ext := extOf(name)
	base := strings.TrimSuffix(name, ext)
	for k := 2; ; k++ {
		if n := fmt.Sprintf("%s (%d)%s", base, k, ext); !taken(n) {
			return n
		}
	}
}

func bySHA(m *manifest, sum string) (File, bool) {
	for _, f := range m.Files {
		if f.SHA256 == sum {
			return f, true
		}
	}
	return File{}, false
}

// Counts says a file's pages, chunks and tokens in words.
func (f File) Counts() string {
	s := ""
	if f.Pages > 0 {
		unit := "pages"
		if f.Format == "pptx" {
			unit = "slides"
		}
		s = counts.Sprintf("%d %s, ", f.Pages, unit)
	}
	return s + counts.Sprintf("%d chunks, about %d tokens", f.Chunks, f.Tokens)
}

// counts writes numbers as the UI's count() does: "213,583", never "213583".
var counts = message.NewPrinter(language.English)

func (s *Service) record(m *manifest, f File) {
	for i := range m.Files {
		if m.Files[i].Name == f.Name {
			m.Files[i] = f
			return
		}
	}
	m.Files = append(m.Files, f)
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Name < m.Files[j].Name })
}
