package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"rehome/backend/core"
	"rehome/backend/knowledge"
)

// KnowledgeProgress is a step of adding knowledge files, sent as the
// "knowledge:progress" event.
type KnowledgeProgress struct {
	AssistantID string `json:"assistant_id"`
	knowledge.Progress
}

// KnowledgeAdd copies files (dropped or picked: full paths; in a browser,
// uploads) into the assistant's knowledge and indexes them, reading PDF,
// DOCX, PPTX, XLSX and HTML in the sandbox; each file's result says
// indexed (pages, chunks) or why not. Progress goes out as
// "knowledge:progress"; KnowledgeCancel stops it (the files done stay).
// An upload is removed once the library holds its copy.
func (svc *KnowledgeService) KnowledgeAdd(assistantID string, paths []string) (_ []knowledge.Result, err error) {
	a := svc.app
	defer a.guard("KnowledgeAdd", &err)
	if err := a.ready(); err != nil {
		return nil, err
	}
	files := make([]string, 0, len(paths))
	for _, p := range paths {
		clean, err := a.readable(p)
		if err != nil {
			return nil, err
		}
		files = append(files, clean)
	}
	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	a.knowMu.Lock()
	if a.knowAdds == nil {
		a.knowAdds = map[string]map[int]context.CancelFunc{}
	}
	if a.knowAdds[assistantID] == nil {
		a.knowAdds[assistantID] = map[int]context.CancelFunc{}
	}
	a.knowSeq++
	seq := a.knowSeq
	a.knowAdds[assistantID][seq] = cancel
	a.knowMu.Unlock()
	defer a.knowDone(assistantID, seq)
	res, err := a.core.Knowledge().Add(ctx, assistantID, files, func(p knowledge.Progress) {
		a.emit("knowledge:progress", KnowledgeProgress{AssistantID: assistantID, Progress: p})
	})
	a.dropUploads(files)
	if errors.Is(err, context.Canceled) && a.ctx.Err() == nil {
		return res, nil // the user stopped it: the results say what was done
	}
	if err != nil {
		return res, uiError(err)
	}
	return res, nil
}

func (a *App) knowDone(assistantID string, seq int) {
	a.knowMu.Lock()
	defer a.knowMu.Unlock()
	delete(a.knowAdds[assistantID], seq)
	if len(a.knowAdds[assistantID]) == 0 {
		delete(a.knowAdds, assistantID)
	}
}

// dropUploads removes the browser uploads among files (the library has
// the copy now: no second one is kept).
func (a *App) dropUploads(files []string) {
	root := filepath.Join(a.cfg.DataDir, UploadsDir)
	for _, f := range files {
		if rel, err := filepath.Rel(root, f); err == nil && filepath.Dir(rel) != "." && filepath.Dir(filepath.Dir(rel)) == "." {
			os.RemoveAll(filepath.Dir(f)) // uploads/<id>/<name>
		}
	}
}

// KnowledgeCancel stops the assistant's adds in progress between files
// and stops a file's parse; the files done are kept. No add: no error.
func (svc *KnowledgeService) KnowledgeCancel(assistantID string) error {
	a := svc.app
	a.knowMu.Lock()
	defer a.knowMu.Unlock()
	for _, cancel := range a.knowAdds[assistantID] {
		cancel()
	}
	return nil
}

// KnowledgeList is the assistant's knowledge files and their state.
func (svc *KnowledgeService) KnowledgeList(assistantID string) ([]knowledge.File, error) {
	return onStore(svc.app, func(c *core.Core) ([]knowledge.File, error) { return c.Knowledge().List(assistantID) })
}

// KnowledgeRanking says how the assistant's files are searched: keywords
// alone (BM25), or with the embedding model it names.
func (svc *KnowledgeService) KnowledgeRanking(assistantID string) (core.KnowledgeRanking, error) {
	return onStore(svc.app, func(c *core.Core) (core.KnowledgeRanking, error) { return c.Knowledge().RankingOf(assistantID) })
}

// KnowledgeSearch ranks the assistant's passages for query as its
// file_search tool does (top 0: the default).
func (svc *KnowledgeService) KnowledgeSearch(assistantID, query string, top int) ([]knowledge.Hit, error) {
	a := svc.app
	return onStore(a, func(c *core.Core) ([]knowledge.Hit, error) {
		return c.Knowledge().Search(a.ctx, assistantID, query, "", top)
	})
}

// KnowledgeRemove takes one file out of the assistant's knowledge: name
// is its name as listed, or the start of its sha256.
func (svc *KnowledgeService) KnowledgeRemove(assistantID, name string) (knowledge.File, error) {
	return onStore(svc.app, func(c *core.Core) (knowledge.File, error) { return c.Knowledge().Remove(assistantID, name) })
}

// PickKnowledgeFile opens the native dialog to choose a file for the
// assistant's knowledge; "" when the user cancels (in a browser: the
// page's file input instead).
func (svc *KnowledgeService) PickKnowledgeFile() (string, error) {
	a := svc.app
	return a.pickGiven("Choose a file for the assistant's knowledge", KnowledgeFilter)
}

// KnowledgeFilter lists the files the knowledge indexes.
var KnowledgeFilter = FileFilter{
	Name:     "Documents (PDF, Word, PowerPoint, Excel, HTML, Markdown, text)",
	Patterns: "*.pdf;*.docx;*.pptx;*.xlsx;*.html;*.htm;*.md;*.markdown;*.txt;*.csv;*.tsv;*.json",
}
