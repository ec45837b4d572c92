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
	"sync"
	"time"

	"rehome/backend/atomicfile"
	"rehome/backend/bytesize"
	"rehome/backend/knowledge/blobs"
	"rehome/backend/llm"
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
}

// Service is the knowledge of every assistant in one data folder:
// <dir>/<sha256> holds each file's bytes once (package blobs), and
// <dir>/assistants/<id>/ an assistant's manifest (files.json) and its
// bleve index (index.bleve).
type Service struct {
	dir      string
	blobs    *blobs.Store
	run      Runner
	chunking Chunking
	embed    Embedder

	mu   sync.Mutex
	open map[string]*textIndex
	// locks serialises the changes of one assistant's knowledge.
	locks map[string]*sync.Mutex
}

// New returns the service over dir (the data folder's knowledge folder).
func New(dir string, opts Options) *Service {
	return &Service{dir: dir, blobs: blobs.New(filepath.Join(dir, "blobs"), MaxFileBytes), run: opts.Run, chunking: opts.Chunking.WithDefaults(), embed: opts.Embed,
		open: map[string]*textIndex{}, locks: map[string]*sync.Mutex{}}
}

// File is one knowledge file of an assistant and what became of it.
type File struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Format string `json:"format"`
	// State is "indexed" or "failed" (Reason says why, in words).
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	Pages  int    `json:"pages,omitempty"`
	Chunks int    `json:"chunks"`
	Tokens int    `json:"tokens"`
	// Path is rehome's own copy; Source where it was added from.
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
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		name := filepath.Base(p)
		step := func(stage string, r *Result) {
			progress(Progress{Index: i + 1, Total: len(paths), File: name, Stage: stage, Result: r})
		}
		step("copying", nil)
		r, replaced := s.addOne(ctx, m, dir, id, p, step)
		if ctx.Err() != nil && r.State == StateFailed {
			return out, ctx.Err()
		}
		if err := s.save(dir, m); err != nil {
			return out, err
		}
		if replaced != "" {
			s.dropBlobIfUnused(replaced)
		}
		out = append(out, r)
		step("done", &r)
	}
	return out, nil
}

// addOne indexes one file into m; replaced is the hash of the bytes it
// replaced (to drop once m is saved), "" when none.
func (s *Service) addOne(ctx context.Context, m *manifest, dir, id, path string, step func(string, *Result)) (r Result, replaced string) {
	name := filepath.Base(path)
	r = Result{File: File{Name: name, Format: FormatOf(name), Source: path, Added: time.Now().UTC()}}
	old, had := find(m, name)
	fail := func(err error) (Result, string) {
		r.State, r.Action, r.Reason = StateFailed, "failed", err.Error()
		r.Message = fmt.Sprintf("%s: not indexed: %s", name, r.Reason)
		if ctx.Err() != nil {
			return r, "" // cancelled: nothing changes
		}
		s.record(m, r.File)
		// Its earlier bytes are no longer what the file holds: their
		// passages go.
		if had && old.Chunks > 0 && old.SHA256 != r.SHA256 {
			if ix, err := s.index(id, dir); err == nil && ix.drop(old.SHA256, old.Chunks) == nil {
				dropVectors(dir, old.SHA256)
				return r, old.SHA256
			}
		}
		return r, ""
	}
	st, err := os.Stat(path)
	switch {
	case err != nil:
		r.Message = fmt.Sprintf("%s: %v", name, err)
		r.State, r.Action, r.Reason = StateFailed, "failed", err.Error()
		return r, "" // nothing to record: there is no such file
	case st.Size() > MaxFileBytes:
		r.Size = st.Size()
		return fail(fmt.Errorf("%w (%s): split it, or keep the part the assistant needs", ErrTooLarge, bytesize.Format(st.Size())))
	}
	if !had && len(m.Files) >= MaxFiles {
		return fail(fmt.Errorf("%w: the assistant has %d files, the most rehome keeps; remove one first", ErrTooManyFiles, MaxFiles))
	}
	b, err := s.blobs.Put(ctx, path)
	if err != nil {
		return fail(err)
	}
	r.SHA256, r.Size, r.Path = b.SHA256, b.Size, b.Path
	if had && old.SHA256 == b.SHA256 && old.State == StateIndexed {
		old.Source = path
		s.record(m, old)
		return Result{File: old, Action: "unchanged", Message: fmt.Sprintf("%s: unchanged (the same bytes are indexed already)", name)}, ""
	}
	step("reading", nil)
	doc, err := s.parse(ctx, b.Path, name)
	if err != nil {
		return fail(err)
	}
	chunks := Split(doc, m.Chunking)
	tokens := 0
	for _, c := range doc.Sections {
		tokens += llm.EstimateTokens(c.Text)
	}
	if tokens > MaxFileTokens {
		return fail(fmt.Errorf("%w: about %d tokens; split it", ErrTooManyTokens, tokens))
	}
	if len(chunks) == 0 {
		return fail(&FileError{Err: ErrNoText, Words: "no text in it"})
	}
	step("indexing", nil)
	ix, err := s.index(id, dir)
	if err != nil {
		return fail(err)
	}
	if had && old.Chunks > 0 {
		if err := ix.drop(old.SHA256, old.Chunks); err != nil {
			return fail(err)
		}
	}
	if err := ix.put(name, b.SHA256, chunks); err != nil {
		return fail(err)
	}
	r.State, r.Pages, r.Chunks, r.Tokens = StateIndexed, doc.Pages, len(chunks), tokens
	r.Action = "indexed"
	if had {
		r.Action = "reindexed"
	}
	s.record(m, r.File)
	r.Message = fmt.Sprintf("%s: %s, %s", name, r.Action, r.Counts())
	if e := s.embedder(); e != nil {
		if err := s.embedFile(ctx, m, dir, ix, b.SHA256, old.SHA256, chunks); err != nil {
			r.Message += fmt.Sprintf(" (no embeddings: %v; it is searched by keywords alone)", err)
		} else {
			r.Message += ", embedded with " + e.Model()
		}
	}
	if had && old.SHA256 != b.SHA256 {
		replaced = old.SHA256
	}
	return r, replaced
}

// Counts says a file's pages, chunks and tokens in words.
func (f File) Counts() string {
	s := ""
	if f.Pages > 0 {
		unit := "pages"
		if f.Format == "pptx" {
			unit = "slides"
		}
		s = fmt.Sprintf("%d %s, ", f.Pages, unit)
	}
	return s + fmt.Sprintf("%d chunks, about %d tokens", f.Chunks, f.Tokens)
}

func find(m *manifest, name string) (File, bool) {
	for _, f := range m.Files {
		if f.Name == name {
			return f, true
		}
	}
	return File{}, false
}

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
