package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"rehome/backend/assistant"
	"rehome/backend/ids"
	"rehome/backend/knowledge"
	"rehome/backend/llm"
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

	mu     sync.Mutex
	chosen knowledge.Embedder // a face's choice (SetEmbedder), else nil
}

// Knowledge is the knowledge service (its files and indexes live in the
// data folder's knowledge folder).
func (c *Core) Knowledge() *Knowledge {
	return lazy(c, &c.know, func() *Knowledge {
		k := &Knowledge{c: c}
		k.svc = knowledge.New(filepath.Join(c.dir, KnowledgeDir), knowledge.Options{Run: c.runSvc, InUse: k.named,
			Sourceless: func(p string) bool { return within(filepath.Join(c.dir, UploadsDir), p) }})
		return k
	})
}

// Resolve finds the assistant ref names (Core.ResolveAssistant).
func (k *Knowledge) Resolve(ref string) (assistant.Assistant, error) {
	return k.c.ResolveAssistant(ref)
}

// Add indexes files for the assistant (see knowledge.Service.Add) and
// lists the indexed ones in its record.
func (k *Knowledge) Add(ctx context.Context, ref string, paths []string, progress func(knowledge.Progress)) ([]knowledge.Result, error) {
	a, err := k.Resolve(ref)
	if err != nil {
		return nil, err
	}
	// Each file becomes rehome's own copy in the assistants' knowledge
	// library (assistant.Library: what the sandbox may mount at
	// /mnt/data, what a bundle carries); the index reads that copy.
	k.useEmbedder(a.ID)
	res, err := k.svc.Add(ctx, a.ID, paths, progress)
	if serr := k.sync(a.ID); err == nil {
		err = serr
	}
	// The bytes a changed file replaced, once the record no longer
	// names them either.
	if now, gerr := k.c.assistants.Get(a.ID); gerr == nil {
		have := map[string]bool{}
		for _, f := range now.Knowledge {
			have[f.SHA256] = true
		}
		for _, f := range a.Knowledge {
			if !have[f.SHA256] {
				k.svc.DropIfUnused(f.SHA256)
			}
		}
	}
	return res, err
}

// UploadsDir is the data folder's folder of browser uploads (a file
// there came from a page, which cannot see where the user kept it).
const UploadsDir = "uploads"

func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
}

// named says whether an assistant's record names the library's copy of
// the bytes with hash sum.
func (k *Knowledge) named(sum string) bool {
	all, err := k.c.assistants.List()
	if err != nil {
		return true // unsure: keep it
	}
	for _, a := range all {
		for _, f := range a.Knowledge {
			if f.SHA256 == sum {
				return true
			}
		}
	}
	return false
}

// sync makes the assistant's list of knowledge files name what is
// indexed, by hash (and keeps the files it lists that are not, such as
// those still on OpenAI's servers); an entry whose bytes the knowledge
// no longer has, under the name of an indexed file, is that file before
// it changed.
func (k *Knowledge) sync(id string) error {
	files, err := k.svc.List(id)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, f := range files {
		known[f.SHA256] = true
	}
	_, err = k.c.assistants.Edit(id, func(a *assistant.Assistant) error {
		for _, f := range files {
			if f.State != knowledge.StateIndexed {
				continue
			}
			kf := assistant.KnowledgeFile{Name: f.Name, Size: f.Size, SHA256: f.SHA256, Path: f.Path}
			at := -1
			for i, x := range a.Knowledge {
				if x.SHA256 == f.SHA256 {
					at = i
					break
				}
			}
			if at < 0 {
				for i, x := range a.Knowledge {
					if x.Name == f.Name && x.SHA256 != "" && !known[x.SHA256] {
						at = i
						break
					}
				}
			}
			if at >= 0 {
				a.Knowledge[at] = kf
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
	k.useEmbedder(a.ID)
	return k.svc.Search(ctx, a.ID, query, file, top)
}

// Remove takes one file out of the assistant's knowledge and its record;
// file is its name as listed, the start of its SHA-256, or a name that
// fits one file (knowledge.Service.Find: several say which).
func (k *Knowledge) Remove(ref, file string) (knowledge.File, error) {
	a, err := k.Resolve(ref)
	if err != nil {
		return knowledge.File{}, err
	}
	f, err := k.svc.Find(a.ID, file)
	if err != nil {
		return f, err
	}
	// The record first: the library's copy goes with the knowledge entry
	// when nothing else names it.
	if _, err := k.c.assistants.Edit(a.ID, func(a *assistant.Assistant) error {
		for i, kf := range a.Knowledge {
			if kf.SHA256 == f.SHA256 {
				a.Knowledge = append(a.Knowledge[:i], a.Knowledge[i+1:]...)
				break
			}
		}
		return nil
	}); err != nil {
		return f, err
	}
	return k.svc.Remove(a.ID, f.Name)
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
			k.useEmbedder(id)
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

// pruneLibrary removes the library's copies no stored assistant and no
// knowledge index names any more (a deleted assistant's knowledge, the
// bytes a changed file replaced).
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
	held, err := k.svc.Held()
	if err != nil {
		return nil // a knowledge list cannot be read: keep every copy
	}
	dir := k.c.assistants.Library().Dir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // no library yet
	}
	for _, e := range entries {
		if e.IsDir() && ids.IsSHA256(e.Name()) && !used[e.Name()] && !held[e.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// Ranking says how the assistant's files are searched, in words.
func (k *Knowledge) Ranking(ref string) string {
	r, err := k.RankingOf(ref)
	if err != nil {
		return ""
	}
	return r.Words
}

// KnowledgeRanking is how an assistant's files are searched.
type KnowledgeRanking struct {
	// Mode is "keywords" (BM25 alone) or "hybrid" (BM25 and embeddings,
	// fused by reciprocal rank).
	Mode string `json:"mode"`
	// Model, Server and Dims name the embedding model, when there is one;
	// Vectors is how many chunks it embedded.
	Model   string `json:"model,omitempty"`
	Server  string `json:"server,omitempty"`
	Dims    int    `json:"dims,omitempty"`
	Vectors int    `json:"vectors,omitempty"`
	// Words says it for the user.
	Words string `json:"words"`
}

// RankingOf says how the assistant's files are searched.
func (k *Knowledge) RankingOf(ref string) (KnowledgeRanking, error) {
	a, err := k.Resolve(ref)
	if err != nil {
		return KnowledgeRanking{}, err
	}
	r := KnowledgeRanking{Mode: "keywords", Words: k.svc.Ranking(a.ID)}
	if e, ok := k.svc.Embedding(a.ID); ok {
		r.Mode, r.Model, r.Server, r.Dims, r.Vectors = "hybrid", e.Model, e.Server, e.Dims, e.Vectors
		if isCarried(e.Server) {
			r.Words = fmt.Sprintf("keywords (BM25) and embeddings (the carried model %s, which rehome starts), fused by reciprocal rank", e.Model)
		}
	}
	return r, nil
}

// Close closes the open indexes.
func (k *Knowledge) Close() error { return k.svc.Close() }
