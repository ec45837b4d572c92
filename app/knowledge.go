package app

import (
	"rehome/backend/knowledge"
)

// KnowledgeProgress is a step of adding knowledge files, sent as the
// "knowledge:progress" event.
type KnowledgeProgress struct {
	AssistantID string `json:"assistant_id"`
	knowledge.Progress
}

// KnowledgeAdd copies files (dropped or picked: full paths) into the
// assistant's knowledge and indexes them, reading PDF, DOCX, PPTX, XLSX
// and HTML in the sandbox; each file's result says indexed (pages,
// chunks) or why not. Progress goes out as "knowledge:progress".
func (a *App) KnowledgeAdd(assistantID string, paths []string) ([]knowledge.Result, error) {
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
	res, err := a.core.Knowledge().Add(a.ctx, assistantID, files, func(p knowledge.Progress) {
		a.emit("knowledge:progress", KnowledgeProgress{AssistantID: assistantID, Progress: p})
	})
	if err != nil {
		return res, uiError(err)
	}
	return res, nil
}

// KnowledgeList is the assistant's knowledge files and their state.
func (a *App) KnowledgeList(assistantID string) ([]knowledge.File, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return a.core.Knowledge().List(assistantID)
}

// KnowledgeSearch ranks the assistant's passages for query as its
// file_search tool does (top 0: the default).
func (a *App) KnowledgeSearch(assistantID, query string, top int) ([]knowledge.Hit, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return a.core.Knowledge().Search(a.ctx, assistantID, query, "", top)
}

// KnowledgeRemove takes one file out of the assistant's knowledge.
func (a *App) KnowledgeRemove(assistantID, name string) (knowledge.File, error) {
	if err := a.ready(); err != nil {
		return knowledge.File{}, err
	}
	return a.core.Knowledge().Remove(assistantID, name)
}
