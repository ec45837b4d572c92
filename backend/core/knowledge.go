package core

import (
	"context"
	"path/filepath"

	"rehome/backend/assistant"
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

func (k *Knowledge) assistant(id string) (assistant.Assistant, error) {
	if err := k.c.Ready(); err != nil {
		return assistant.Assistant{}, err
	}
	return k.c.assistants.Get(id)
}

// Add indexes files for the assistant (see knowledge.Service.Add) and
// lists the indexed ones in its record.
func (k *Knowledge) Add(ctx context.Context, id string, paths []string, progress func(knowledge.Progress)) ([]knowledge.Result, error) {
	if _, err := k.assistant(id); err != nil {
		return nil, err
	}
	res, err := k.svc.Add(ctx, id, paths, progress)
	if serr := k.sync(id); err == nil {
		err = serr
	}
	return res, err
}

// sync makes the assistant's list of knowledge files name what is
// indexed (and keeps the files it lists that are not, such as those
// still on OpenAI's servers).
func (k *Knowledge) sync(id string) error {
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
			kf := assistant.KnowledgeFile{Name: f.Name, Size: f.Size, SHA256: f.SHA256, Path: f.Source}
			if i, ok := by[f.Name]; ok {
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
func (k *Knowledge) List(id string) ([]knowledge.File, error) {
	if _, err := k.assistant(id); err != nil {
		return nil, err
	}
	return k.svc.List(id)
}

// Search ranks the assistant's passages for query.
func (k *Knowledge) Search(ctx context.Context, id, query, file string, top int) ([]knowledge.Hit, error) {
	if _, err := k.assistant(id); err != nil {
		return nil, err
	}
	return k.svc.Search(ctx, id, query, file, top)
}

// Remove takes one file out of the assistant's knowledge and its record.
func (k *Knowledge) Remove(id, name string) (knowledge.File, error) {
	if _, err := k.assistant(id); err != nil {
		return knowledge.File{}, err
	}
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

// Close closes the open indexes.
func (k *Knowledge) Close() error { return k.svc.Close() }
