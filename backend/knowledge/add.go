package knowledge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"rehome/backend/assistant"
	"rehome/backend/bytesize"
	"rehome/backend/llm"
)

// adding is one file on its way into an assistant's knowledge: the names
// it is listed under, the entry it replaces, and its result so far.
type adding struct {
	s       *Service
	ctx     context.Context
	m       *manifest
	dir, id string
	name    string // the file's own name
	listed  string // the name it is listed under (another may hold name)
	src     string // its path on the host ("" where it is not kept)
	old     File   // the entry it replaces, when had
	had     bool
	r       Result
}

// addOne indexes one file into m; replaced is the hash of the bytes it
// replaced (to drop once m is saved), "" when none. The library copies
// it makes are added to held.
func (s *Service) addOne(ctx context.Context, m *manifest, dir, id, path string, step func(string, *Result), held *[]string) (r Result, replaced string) {
	a := s.newAdding(ctx, m, dir, id, path)
	st, err := os.Stat(path)
	if err != nil {
		a.r.Message = fmt.Sprintf("%s: %v", a.name, err)
		a.r.State, a.r.Action, a.r.Reason = StateFailed, "failed", err.Error()
		return a.r, "" // nothing to record: there is no such file
	}
	if err := a.admit(st.Size()); err != nil {
		return a.fail(err)
	}
	c, err := a.copy(path, held)
	if err != nil {
		return a.fail(err)
	}
	if same, ok := bySHA(m, c.SHA256); ok && same.State == StateIndexed {
		return a.sameBytes(same)
	}
	step("reading", nil)
	doc, chunks, tokens, err := a.read(c)
	if err != nil {
		return a.fail(err)
	}
	step("indexing", nil)
	ix, err := s.index(id, dir)
	if err != nil {
		return a.fail(err)
	}
	if a.had && a.old.Chunks > 0 {
		if err := ix.drop(a.old.SHA256, a.old.Chunks); err != nil {
			return a.fail(err)
		}
	}
	if err := ix.put(ctx, a.listed, c.SHA256, chunks); err != nil {
		return a.fail(err)
	}
	return a.indexed(ix, c, doc, chunks, tokens)
}

// newAdding names the file as m lists it: the entry of the same name and
// source it replaces, else a free name.
func (s *Service) newAdding(ctx context.Context, m *manifest, dir, id, path string) *adding {
	a := &adding{s: s, ctx: ctx, m: m, dir: dir, id: id, name: listedName(filepath.Base(path)), src: path}
	if abs, err := filepath.Abs(path); err == nil {
		a.src = abs
	}
	if s.noSource(a.src) {
		a.src = ""
	}
	a.old, a.had = entryFor(m, a.name, a.src)
	if a.had {
		a.listed = a.old.Name
	} else {
		a.listed = freeName(m, a.name)
	}
	a.r = Result{File: File{Name: a.listed, Format: FormatOf(a.name), Source: a.src, Added: time.Now().UTC()}}
	if a.listed != a.name {
		a.r.Original = a.name
	}
	return a
}

// fail records the file as failed, with its reason (not when cancelled:
// then nothing changes); its earlier bytes' passages go, as they are no
// longer what the file holds.
func (a *adding) fail(err error) (Result, string) {
	r, old := &a.r, a.old
	r.State, r.Action, r.Reason = StateFailed, "failed", oneLine(err.Error())
	r.Path = "" // its library copy goes once the manifest is saved (Add)
	r.Message = fmt.Sprintf("%s: not indexed: %s", a.listed, r.Reason)
	if a.ctx.Err() != nil {
		return *r, "" // cancelled: nothing changes
	}
	a.s.record(a.m, r.File)
	if a.had && old.Chunks > 0 && old.SHA256 != r.SHA256 {
		if ix, err := a.s.index(a.id, a.dir); err == nil && ix.drop(old.SHA256, old.Chunks) == nil {
			dropVectors(a.dir, old.SHA256)
			return *r, old.SHA256
		}
	}
	return *r, ""
}

// admit refuses a file too large to keep or read, or one more than
// MaxFiles.
func (a *adding) admit(size int64) error {
	if size > MaxFileBytes {
		a.r.Size = size
		return fmt.Errorf("%w (%s): split it, or keep the part the assistant needs", ErrTooLarge, bytesize.Format(size))
	}
	if err := tooBigToRead(a.name, size); err != nil {
		a.r.Size = size
		return err
	}
	if !a.had && len(a.m.Files) >= MaxFiles {
		return fmt.Errorf("%w: the assistant has %d files, the most rehome keeps; remove one first", ErrTooManyFiles, MaxFiles)
	}
	return nil
}

// copy copies the file into the library (held until the manifest is
// saved) and checks it did not grow past MaxFileBytes meanwhile.
func (a *adding) copy(path string, held *[]string) (assistant.KnowledgeFile, error) {
	c, err := a.s.lib.AddAs(a.ctx, path, a.listed)
	if errors.Is(err, assistant.ErrKnowledgeTooLarge) {
		return c, fmt.Errorf("%w (it grew past %s while it was copied): split it, or keep the part the assistant needs", ErrTooLarge, bytesize.Format(MaxFileBytes))
	}
	if err != nil {
		return c, err
	}
	a.s.hold(c.SHA256)
	*held = append(*held, c.SHA256)
	a.r.SHA256, a.r.Size, a.r.Path = c.SHA256, c.Size, c.Path
	if c.Size > MaxFileBytes { // it grew while copied
		return c, fmt.Errorf("%w (%s): split it, or keep the part the assistant needs", ErrTooLarge, bytesize.Format(c.Size))
	}
	return c, nil
}

// sameBytes answers a file whose bytes another entry, same, has indexed
// already: unchanged, and where it was another entry, that one stays and
// this one's earlier passages go.
func (a *adding) sameBytes(same File) (Result, string) {
	name, old := a.name, a.old
	if !a.had || same.Name == old.Name {
		if same.Source == "" || same.Name == old.Name {
			same.Source = a.src
		}
		a.s.record(a.m, same)
		msg := fmt.Sprintf("%s: unchanged (the same bytes are indexed already)", name)
		if same.Name != name {
			msg = fmt.Sprintf("%s: unchanged (the same bytes are indexed already as %s)", name, same.Name)
		}
		return Result{File: same, Action: "unchanged", Message: msg}, ""
	}
	if err := a.s.forgetEntry(a.id, a.dir, a.m, old); err != nil {
		return a.fail(err)
	}
	msg := fmt.Sprintf("%s: unchanged (its bytes are now those of %s, indexed already; %s was taken out)", name, same.Name, old.Name)
	return Result{File: same, Action: "unchanged", Message: msg}, old.SHA256
}

// read parses the library copy and cuts it into chunks, within
// MaxFileTokens.
func (a *adding) read(c assistant.KnowledgeFile) (Document, []Chunk, int, error) {
	doc, err := a.s.parse(a.ctx, c.Path, a.name)
	if err == nil {
		// A read on the host (text) does not watch ctx: a Stop during it
		// stops here, before anything of the file is indexed.
		err = a.ctx.Err()
	}
	if err != nil {
		return doc, nil, 0, err
	}
	tokens := 0
	for _, c := range doc.Sections {
		tokens += llm.EstimateTokens(c.Text)
	}
	if tokens > MaxFileTokens { // before it is cut: the chunks hold it twice
		return doc, nil, 0, fmt.Errorf("%w: about %s tokens; split it", ErrTooManyTokens, counts.Sprintf("%d", tokens))
	}
	chunks := Split(doc, a.m.Chunking)
	if len(chunks) == 0 {
		return doc, nil, 0, &FileError{Err: ErrNoText, Words: "no text in it"}
	}
	return doc, chunks, tokens, nil
}

// indexed records the file indexed, says so in words, and embeds its
// chunks where an embedding model is set (else it is searched by
// keywords alone).
func (a *adding) indexed(ix *textIndex, c assistant.KnowledgeFile, doc Document, chunks []Chunk, tokens int) (Result, string) {
	r, name, listed := &a.r, a.name, a.listed
	r.State, r.Pages, r.Chunks, r.Tokens = StateIndexed, doc.Pages, len(chunks), tokens
	r.Action = "indexed"
	if a.had {
		r.Action = "reindexed"
	}
	a.s.record(a.m, r.File)
	r.Message = fmt.Sprintf("%s: %s, %s", listed, r.Action, r.Counts())
	if listed != name {
		r.Message = fmt.Sprintf("%s: %s as %s (another %s is in the knowledge already), %s", name, r.Action, listed, name, r.Counts())
	}
	if e := a.s.embedder(); e != nil {
		if err := a.s.embedFile(a.ctx, a.m, a.dir, ix, c.SHA256, a.old.SHA256, chunks); err != nil {
			r.Message += fmt.Sprintf(" (no embeddings: %v; it is searched by keywords alone)", err)
		} else {
			r.EmbeddedWith = e.Model()
			r.Message += ", embedded with " + e.Model()
		}
	}
	replaced := ""
	if a.had && a.old.SHA256 != c.SHA256 {
		replaced = a.old.SHA256
	}
	return *r, replaced
}
