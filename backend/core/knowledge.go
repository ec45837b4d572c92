package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rehome/backend/assistant"
	"rehome/backend/knowledge"
	"rehome/backend/llm"
	"rehome/backend/store"
)

// KnowledgeDir is the data folder's folder of knowledge: each file's
// bytes once by SHA-256, and each assistant's index.
const KnowledgeDir = "knowledge"

// Knowledge is the knowledge service every face calls: files added to an
// assistant are copied, parsed in the sandbox, indexed and searched; the
// assistant's record lists them (name, size, hash).
type Knowledge struct {
	c   *Core
	svc *knowledge.Service
}

// Knowledge is the knowledge service (its files and indexes live in the
// data folder's knowledge folder).
func (c *Core) Knowledge() *Knowledge {
	c.engMu.Lock()
	defer c.engMu.Unlock()
	if c.know == nil {
		c.know = &Knowledge{c: c, svc: knowledge.New(filepath.Join(c.dir, KnowledgeDir), knowledge.Options{Run: c.runSvc})}
	}
	return c.know
}

// Resolve finds the assistant ref names: its id, else its name (any
// case) when one assistant has it.
func (k *Knowledge) Resolve(ref string) (assistant.Assistant, error) {
	if err := k.c.Ready(); err != nil {
		return assistant.Assistant{}, err
	}
	a, err := k.c.assistants.Get(ref)
	if !errors.Is(err, store.ErrNotFound) {
		return a, err
	}
	all, lerr := k.c.assistants.List()
	if lerr != nil {
		return a, err
	}
	var found []assistant.Assistant
	for _, x := range all {
		if strings.EqualFold(strings.TrimSpace(x.Name), strings.TrimSpace(ref)) {
			found = append(found, x)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return a, fmt.Errorf("no assistant has the id or name %q (see `rehome assistants list`)", ref)
	}
	return a, fmt.Errorf("%d assistants are named %q: give the id (see `rehome assistants list`)", len(found), ref)
}

// Add indexes files for the assistant (see knowledge.Service.Add) and
// lists the indexed ones in its record.
func (k *Knowledge) Add(ctx context.Context, ref string, paths []string, progress func(knowledge.Progress)) ([]knowledge.Result, error) {
	a, err := k.Resolve(ref)
	if err != nil {
		return nil, err
	}
	id := a.ID
	// Each file is first rehome's own copy in the assistant's knowledge
	// library (assistant.Library: what the sandbox may mount at
	// /mnt/data, what a bundle carries); the index reads that copy.
	lib := k.c.assistants.Library()
	copies := make([]string, 0, len(paths))
	at := map[string]string{} // sha256 -> the library's copy
	for _, p := range paths {
		kf, err := lib.Add(p)
		if err != nil {
			return nil, err
		}
		copies = append(copies, kf.Path)
		at[kf.SHA256] = kf.Path
	}
	res, err := k.svc.Add(ctx, id, copies, progress)
	if serr := k.sync(id, at); err == nil {
		err = serr
	}
	return res, err
}

// sync makes the assistant's list of knowledge files name what is
// indexed (and keeps the files it lists that are not, such as those
// still on OpenAI's servers).
func (k *Knowledge) sync(id string, at map[string]string) error {
	files, err := k.svc.List(id)
	if err != nil {
		return err
	}
	_, err = k.c.assistants.Edit(id, func(a *assistant.Assistant) error {
		by := map[string]int{}
		for i, f := range a.Knowledge {
			by[f.Name] = i
		}
		for _, f := range files {
			if f.State != knowledge.StateIndexed {
				continue
			}
			kf := assistant.KnowledgeFile{Name: f.Name, Size: f.Size, SHA256: f.SHA256, Path: at[f.SHA256]}
			if i, ok := by[f.Name]; ok {
				if kf.Path == "" && a.Knowledge[i].SHA256 == f.SHA256 {
					kf.Path = a.Knowledge[i].Path // indexed before, its copy unchanged
				}
				a.Knowledge[i] = kf
			} else {
				a.Knowledge = append(a.Knowledge, kf)
			}
		}
		return nil
	})
	return err
}

// List returns the assistant's knowledge files and their state.
func (k *Knowledge) List(ref string) ([]knowledge.File, error) {
	a, err := k.Resolve(ref)
	if err != nil {
		return nil, err
	}
	return k.svc.List(a.ID)
}

// Search ranks the assistant's passages for query.
func (k *Knowledge) Search(ctx context.Context, ref, query, file string, top int) ([]knowledge.Hit, error) {
	a, err := k.Resolve(ref)
	if err != nil {
		return nil, err
	}
	return k.svc.Search(ctx, a.ID, query, file, top)
}

// Remove takes one file out of the assistant's knowledge and its record.
func (k *Knowledge) Remove(ref, name string) (knowledge.File, error) {
	a, err := k.Resolve(ref)
	if err != nil {
		return knowledge.File{}, err
	}
	id := a.ID
	f, err := k.svc.Remove(id, name)
	if err != nil {
		return f, err
	}
	_, err = k.c.assistants.Edit(id, func(a *assistant.Assistant) error {
		for i, kf := range a.Knowledge {
			if kf.Name == name {
				a.Knowledge = append(a.Knowledge[:i], a.Knowledge[i+1:]...)
				break
			}
		}
		return nil
	})
	return f, err
}

// Tool is the file_search entry of the ask loop for the assistant, and
// false when it has no indexed file (then the loop offers python alone).
func (k *Knowledge) Tool(id string) (llm.LoopTool, bool) {
	if id == "" {
		return llm.LoopTool{}, false
	}
	files, err := k.svc.List(id)
	if err != nil {
		return llm.LoopTool{}, false
	}
	for _, f := range files {
		if f.State == knowledge.StateIndexed {
			t, err := k.svc.Tool(id)
			return t, err == nil
		}
	}
	return llm.LoopTool{}, false
}

// Forget removes the knowledge of an assistant that was deleted: its
// index, its vectors, and the copies of its files no other assistant uses.
func (k *Knowledge) Forget(id string) error {
	if err := k.svc.Forget(id); err != nil {
		return err
	}
	return k.pruneLibrary()
}

// pruneLibrary removes the library's copies no stored assistant names any
// more (a deleted assistant's knowledge).
func (k *Knowledge) pruneLibrary() error {
	all, err := k.c.assistants.List()
	if err != nil {
		return err
	}
	used := map[string]bool{}
	for _, a := range all {
		for _, f := range a.Knowledge {
			used[f.SHA256] = true
		}
	}
	dir := k.c.assistants.Library().Dir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // no library yet
	}
	for _, e := range entries {
		if e.IsDir() && isSHA256(e.Name()) && !used[e.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// SetEmbedder makes the next Adds embed chunks with e too (nil: keywords
// alone); searches ask the model the chunks were embedded with.
func (k *Knowledge) SetEmbedder(e knowledge.Embedder) { k.svc.SetEmbedder(e) }

// Ranking says how the assistant's files are searched, in words.
func (k *Knowledge) Ranking(ref string) string {
	a, err := k.Resolve(ref)
	if err != nil {
		return ""
	}
	return k.svc.Ranking(a.ID)
}

// Close closes the open indexes.
func (k *Knowledge) Close() error { return k.svc.Close() }
