package assistant

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// HashFile describes the file at path as a knowledge file: its name,
// size, SHA-256 (read in a stream, so size is no problem) and absolute
// path. It copies nothing: a reference to keep is made by Library.Add.
func HashFile(path string) (KnowledgeFile, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return KnowledgeFile{}, fmt.Errorf("knowledge file %s: %w", path, err)
	}
	f, err := os.Open(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return KnowledgeFile{}, fmt.Errorf("knowledge file %s: not found: check the path", path)
		}
		return KnowledgeFile{}, fmt.Errorf("knowledge file %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return KnowledgeFile{}, fmt.Errorf("knowledge file %s: %w", path, err)
	}
	if st.IsDir() {
		return KnowledgeFile{}, fmt.Errorf("knowledge file %s: is a folder: attach the files in it one by one", path)
	}
	if !st.Mode().IsRegular() {
		return KnowledgeFile{}, fmt.Errorf("knowledge file %s: not a regular file", path)
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return KnowledgeFile{}, fmt.Errorf("knowledge file %s: read: %w", path, err)
	}
	return KnowledgeFile{Name: filepath.Base(abs), Size: n, SHA256: hex.EncodeToString(h.Sum(nil)), Path: abs}, nil
}

// resolveKnowledge keeps the references a JSON brought — name, size and
// hash, never its path: a description may not choose files on this
// machine — and copies the files the user attached (extra) into the
// library, completing a reference with the same hash or adding one.
func (s *Service) resolveKnowledge(in []KnowledgeFile, extra []string) ([]KnowledgeFile, []string, error) {
	var out []KnowledgeFile
	var warnings []string
	for i, k := range in {
		if k.Path != "" {
			warnings = append(warnings, fmt.Sprintf("knowledge[%d] %s: the description names %s; rehome does not read files a description names: attach the file itself (--knowledge, or drop it) and it is matched by its hash", i, k.Name, k.Path))
			k.Path = ""
		} else if k.SHA256 == "" {
			warnings = append(warnings, fmt.Sprintf("knowledge[%d] %s: no path and no hash: the reference is kept by name only; attach the file with --knowledge", i, k.Name))
		}
		out = append(out, k)
	}
	for _, path := range extra {
		k, err := s.lib.Add(path)
		if err != nil {
			return nil, nil, err
		}
		if i := slices.IndexFunc(out, func(o KnowledgeFile) bool { return o.SHA256 == k.SHA256 }); i >= 0 {
			if out[i].Path == "" {
				// The same bytes: the file completes a reference.
				out[i].Path, out[i].Size = k.Path, k.Size
				if out[i].Name == "" {
					out[i].Name = k.Name
				}
				continue
			}
			warnings = append(warnings, fmt.Sprintf("%s: the same file as knowledge %q; attached once", path, out[i].Name))
			continue
		}
		out = append(out, k)
	}
	return out, warnings, nil
}

// Import parses a JSON description, attaches the knowledge files, and
// stores the assistant under a new id, or, for a GPT imported before
// (the same g- id), updates that assistant (see mergeGPT).
func (s *Service) Import(data []byte, opts ImportOptions) (Imported, error) {
	return s.importOne(data, opts, nil)
}

// importOne is Import; gizmos, when not nil, maps g- ids to the ids of
// the assistants imported from them (one list read for a whole file,
// kept up to date here), else the store is searched.
func (s *Service) importOne(data []byte, opts ImportOptions, gizmos map[string]string) (Imported, error) {
	imp, err := ParseJSON(data)
	if err != nil {
		return Imported{}, err
	}
	kn, warnings, err := s.resolveKnowledge(imp.Assistant.Knowledge, opts.Knowledge)
	if err != nil {
		return Imported{}, err
	}
	imp.Assistant.Knowledge = kn
	imp.Warnings = append(imp.Warnings, warnings...)
	if imp.needsKnowledge && len(kn) == 0 {
		imp.Warnings = append(imp.Warnings, "tools: file_search is on, but no knowledge files came with the JSON: the knowledge capability is kept, and the audit asks for the files; attach them with --knowledge so the knowledge moves too")
	}
	imp.Warnings = append(imp.Warnings, withoutAllowance(&imp.Assistant)...)
	oldID, found := "", false
	if gizmos != nil {
		oldID, found = gizmos[imp.Assistant.GizmoID]
		found = found && imp.Assistant.GizmoID != ""
	} else if old, ok, err := s.byGizmo(imp.Assistant.GizmoID); err != nil {
		return Imported{}, err
	} else {
		oldID, found = old.ID, ok
	}
	if found {
		var more []string
		a, err := s.Edit(oldID, func(o *Assistant) error {
			more = mergeGPT(o, imp.Assistant)
			return nil
		})
		if err != nil {
			return Imported{}, err
		}
		return Imported{Assistant: a, Warnings: append(imp.Warnings, more...), Updated: true}, nil
	}
	a, err := s.Create(imp.Assistant)
	if err != nil {
		return Imported{}, err
	}
	if gizmos != nil && a.GizmoID != "" {
		gizmos[a.GizmoID] = a.ID
	}
	return Imported{Assistant: a, Warnings: imp.Warnings}, nil
}

// gizmoIndex maps the g- ids of stored assistants to their ids.
func (s *Service) gizmoIndex() (map[string]string, error) {
	all, err := s.List()
	if err != nil {
		return nil, err
	}
	idx := map[string]string{}
	for _, a := range all {
		if a.GizmoID != "" {
			idx[a.GizmoID] = a.ID
		}
	}
	return idx, nil
}

// ImportItem is what became of one assistant of an imported file.
type ImportItem struct {
	// Index is its place in the file's list (0 for a single object);
	// SourceID its id there (an OpenAI asst_ id), "" when it had none.
	Index    int    `json:"index"`
	SourceID string `json:"source_id"`
	// Name is the stored name, or the name in the file when it was not
	// imported.
	Name     string `json:"name"`
	Imported bool   `json:"imported"`
	// Updated: an assistant imported from this GPT before was updated.
	Updated bool `json:"updated,omitempty"`
	// Assistant is the stored record when Imported.
	Assistant *Assistant `json:"assistant,omitempty"`
	// Warnings say what did not come along, and why.
	Warnings []string `json:"warnings"`
	// Error says why it was not imported at all.
	Error string `json:"error,omitempty"`
}

// ImportReport is the outcome of importing a file that holds one
// assistant or a list of them.
type ImportReport struct {
	// List is true when the file was a list (the Assistants API's
	// `GET /v1/assistants` response: {"object": "list", "data": [...]}).
	List     bool         `json:"list"`
	Items    []ImportItem `json:"items"`
	Imported int          `json:"imported"`
	Failed   int          `json:"failed"`
	// Notes are about the file as a whole (a list with more pages).
	Notes []string `json:"notes"`
	// Preview: nothing was stored; Items say what importing would do.
	Preview bool `json:"preview,omitempty"`
}

// listItems returns the assistant objects of an Assistants API list
// response, or ok false when data is not a list.
func listItems(data []byte) (items []json.RawMessage, notes []string, ok bool, err error) {
	var head struct {
		Object  string          `json:"object"`
		Data    json.RawMessage `json:"data"`
		HasMore bool            `json:"has_more"`
		LastID  string          `json:"last_id"`
	}
	if json.Unmarshal(data, &head) != nil || (head.Object != "list" && head.Data == nil) {
		return nil, nil, false, nil
	}
	if head.Object != "list" {
		// {"data": ...} without "object": "list" is not the list response.
		var probe map[string]json.RawMessage
		_ = json.Unmarshal(data, &probe)
		if _, named := probe["name"]; named {
			return nil, nil, false, nil
		}
	}
	if err := json.Unmarshal(head.Data, &items); err != nil || head.Data == nil {
		return nil, nil, true, fmt.Errorf("%w: data: expected an array of assistant objects (the Assistants API's list response)", ErrInvalid)
	}
	if len(items) == 0 {
		return nil, nil, true, fmt.Errorf("%w: the list holds no assistants (data is empty)", ErrInvalid)
	}
	if head.HasMore {
		next := "the next page"
		if head.LastID != "" {
			next = fmt.Sprintf("the next page (GET /v1/assistants?after=%s&limit=100)", head.LastID)
		}
		notes = append(notes, fmt.Sprintf("has_more is true: OpenAI holds more assistants than this page; fetch %s and import it too", next))
	}
	return items, notes, true, nil
}

// ImportJSON imports a JSON file that describes one assistant (as Import
// does) or lists several (the Assistants API's list response). Each
// assistant of a list is imported on its own: one that cannot be imported
// is reported with the reason and the others still are. Knowledge files in
// opts attach to a single assistant only. The error is for a file that
// cannot be read as either.
func (s *Service) ImportJSON(data []byte, opts ImportOptions) (ImportReport, error) {
	gizmos, err := s.gizmoIndex()
	if err != nil {
		return ImportReport{}, err
	}
	return s.eachItem(data, opts, func(b []byte) (Imported, error) { return s.importOne(b, opts, gizmos) })
}

// PreviewJSON reads a file as ImportJSON does and reports what importing
// it would do, per assistant — the name, what comes along and what does
// not, whether an assistant imported from the same GPT would be updated —
// storing nothing.
func (s *Service) PreviewJSON(data []byte) (ImportReport, error) {
	gizmos, err := s.gizmoIndex()
	if err != nil {
		return ImportReport{}, err
	}
	rep, err := s.eachItem(data, ImportOptions{}, func(b []byte) (Imported, error) { return preview(b, gizmos) })
	rep.Preview = true
	return rep, err
}

// preview parses and checks one record as Import would; gizmos grows
// with the GPTs seen, so a GPT listed twice previews as one update.
func preview(data []byte, gizmos map[string]string) (Imported, error) {
	imp, err := ParseJSON(data)
	if err != nil {
		return Imported{}, err
	}
	imp.Assistant.Normalize()
	if err := imp.Assistant.Validate(); err != nil {
		return Imported{}, err
	}
	if g := imp.Assistant.GizmoID; g != "" {
		_, imp.Updated = gizmos[g]
		gizmos[g] = ""
	}
	return imp, nil
}

// eachItem reads a file of one assistant or a list of them and does do
// with each, reporting each on its own.
func (s *Service) eachItem(data []byte, opts ImportOptions, do func([]byte) (Imported, error)) (ImportReport, error) {
	items, notes, isList, err := gptItems(data)
	if err != nil {
		return ImportReport{}, err
	}
	if !isList {
		items, notes, isList, err = listItems(data)
		if err != nil {
			return ImportReport{}, err
		}
	}
	if !isList {
		imp, err := do(data)
		if err != nil {
			return ImportReport{}, err
		}
		a := imp.Assistant
		it := ImportItem{Name: a.Name, SourceID: a.GizmoID, Imported: true, Updated: imp.Updated, Assistant: &a, Warnings: imp.Warnings}
		return ImportReport{Items: []ImportItem{it}, Imported: 1, Notes: []string{}}, nil
	}
	if len(opts.Knowledge) > 0 && len(items) > 1 {
		return ImportReport{}, fmt.Errorf("%w: the list holds %d assistants and knowledge files cannot say which one they belong to: import the list without them, then import each assistant's own JSON with its files", ErrInvalid, len(items))
	}
	rep := ImportReport{List: true, Items: []ImportItem{}, Notes: notes}
	if rep.Notes == nil {
		rep.Notes = []string{}
	}
	for i, raw := range items {
		it := ImportItem{Index: i, Warnings: []string{}}
		it.SourceID, it.Name = headOf(raw)
		imp, err := do(raw)
		if err != nil {
			it.Error = strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": ")
			rep.Failed++
		} else {
			a := imp.Assistant
			it.Imported, it.Updated, it.Assistant, it.Name, it.Warnings = true, imp.Updated, &a, a.Name, imp.Warnings
			rep.Imported++
		}
		rep.Items = append(rep.Items, it)
	}
	return rep, nil
}
