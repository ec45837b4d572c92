package assistant

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"rehome/backend/ids"
)

// Imported is a parsed or stored import, with what the user should know:
// parts of the description that could not come along, and why.
type Imported struct {
	Assistant Assistant `json:"assistant"`
	Warnings  []string  `json:"warnings"`
	// Updated: the GPT was imported before (the same g- id) and that
	// assistant was updated rather than a second one made.
	Updated bool `json:"updated,omitempty"`
	// needsKnowledge: the description searches files that did not come
	// with it.
	needsKnowledge bool
}

// ImportOptions add to what the JSON describes.
type ImportOptions struct {
	// Knowledge lists files the user attaches: each is copied into the
	// service's knowledge library (see Library), where its reference
	// points.
	Knowledge []string `json:"knowledge"`
}

// capabilityAliases maps the names a GPT's capabilities go by (ChatGPT's
// GPT editor, the Assistants API, people) to rehome's ids.
var capabilityAliases = map[string]Capability{
	"web_browsing":                   WebBrowsing,
	"browsing":                       WebBrowsing,
	"web_search":                     WebBrowsing,
	"web_search_preview":             WebBrowsing,
	"web":                            WebBrowsing,
	"image_generation":               ImageGeneration,
	"dall_e":                         ImageGeneration,
	"dalle":                          ImageGeneration,
	"dall_e_image_generation":        ImageGeneration,
	"image_gen":                      ImageGeneration,
	"code_interpreter":               CodeInterpreter,
	"code_interpreter_data_analysis": CodeInterpreter,
	"data_analysis":                  CodeInterpreter,
	"python":                         CodeInterpreter,
	"canvas":                         Canvas,
	"memory":                         Memory,
	"voice":                          Voice,
	"vision":                         Vision,
}

// capabilityKey folds "Code Interpreter & Data Analysis" or "DALL·E" to
// the form capabilityAliases uses.
func capabilityKey(s string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			under = false
		} else if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

// ParseJSON reads a JSON description of a GPT: the fields of rehome's
// Assistant record, or an OpenAI Assistants API object (name, description,
// instructions, model, tools with code_interpreter, file_search and
// function), or a mix. Unknown fields are ignored; a known field of the
// wrong type is an error that names it ("instructions: expected a string,
// got number"), and so is broken JSON, with its line and column. Nothing is
// validated or stored; see Service.Import.
func ParseJSON(data []byte) (Imported, error) {
	var raw any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return Imported{}, jsonError(data, err)
	}
	if dec.More() {
		return Imported{}, fmt.Errorf("%w: the file holds more than one JSON value: import one assistant per file", ErrInvalid)
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return Imported{}, fmt.Errorf("%w: expected a JSON object describing one assistant, got %s", ErrInvalid, typeName(raw))
	}
	if rec, ok := asGPT(obj); ok {
		return parseGPT(rec)
	}
	if items, _, ok := gptList(obj); ok {
		return Imported{}, fmt.Errorf("%w: this is a list of %d GPTs: import it with `rehome assistants import FILE` or the Import panel, which take every GPT in it", ErrInvalid, len(items))
	}
	if err := notAnAssistant(obj); err != nil {
		return Imported{}, err
	}
	if obj["object"] == "list" {
		return Imported{}, fmt.Errorf("%w: this is a list of assistants (the Assistants API's list response): import it with `rehome assistants import FILE` or the Import panel, which take every assistant in it", ErrInvalid)
	}
	p := &parser{obj: obj}
	a := p.assistant()
	if p.err != nil {
		return Imported{}, p.err
	}
	if p.warnings == nil {
		p.warnings = []string{}
	}
	return Imported{Assistant: a, Warnings: p.warnings, needsKnowledge: p.needsKnowledge}, nil
}

// jsonError says where broken JSON broke.
func jsonError(data []byte, err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: the file is empty: expected a JSON object describing the assistant", ErrInvalid)
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, col := lineCol(data, int64(len(data)))
		return fmt.Errorf("%w: the JSON ends early at line %d, column %d: the file looks cut short", ErrInvalid, line, col)
	case errors.As(err, &syn):
		line, col := lineCol(data, syn.Offset)
		return fmt.Errorf("%w: broken JSON at line %d, column %d: %s", ErrInvalid, line, col, strings.TrimPrefix(syn.Error(), "json: "))
	}
	return fmt.Errorf("%w: %v", ErrInvalid, err)
}

func lineCol(data []byte, off int64) (line, col int) {
	off = min(off, int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// parser walks the decoded JSON; the first type error stops it.
type parser struct {
	obj            map[string]any
	err            error
	warnings       []string
	knowledgeFiles []KnowledgeFile
	needsKnowledge bool
}

func (p *parser) fail(path, want string, got any) {
	if p.err == nil {
		p.err = fmt.Errorf("%w: %s: expected %s, got %s", ErrInvalid, path, want, typeName(got))
	}
}

func (p *parser) warn(format string, a ...any) {
	p.warnings = append(p.warnings, fmt.Sprintf(format, a...))
}

// str reads an optional string (null counts as absent).
func (p *parser) str(obj map[string]any, key, path string) (string, bool) {
	v, ok := obj[key]
	if !ok || v == nil {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		p.fail(path, "a string", v)
		return "", false
	}
	return s, true
}

func (p *parser) number(obj map[string]any, key, path string) (json.Number, bool) {
	v, ok := obj[key]
	if !ok || v == nil {
		return "", false
	}
	n, ok := v.(json.Number)
	if !ok {
		p.fail(path, "a number", v)
		return "", false
	}
	return n, true
}

func (p *parser) array(obj map[string]any, key, path string) []any {
	v, ok := obj[key]
	if !ok || v == nil {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		p.fail(path, "an array", v)
		return nil
	}
	return arr
}

// objects yields the objects of obj's array key, each with its path
// (key[i]); at an element that is not an object it fails and stops.
func (p *parser) objects(obj map[string]any, key string) iter.Seq2[string, map[string]any] {
	return func(yield func(string, map[string]any) bool) {
		for i, v := range p.array(obj, key, key) {
			path := fmt.Sprintf("%s[%d]", key, i)
			m, ok := v.(map[string]any)
			if !ok {
				p.fail(path, "an object", v)
				return
			}
			if !yield(path, m) {
				return
			}
		}
	}
}

func (p *parser) object(obj map[string]any, key, path string) map[string]any {
	v, ok := obj[key]
	if !ok || v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		p.fail(path, "an object", v)
		return nil
	}
	return m
}

func (p *parser) stringList(obj map[string]any, key string) []string {
	var out []string
	for i, v := range p.array(obj, key, key) {
		s, ok := v.(string)
		if !ok {
			p.fail(fmt.Sprintf("%s[%d]", key, i), "a string", v)
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (p *parser) assistant() Assistant {
	o := p.obj
	var a Assistant
	if n, ok := p.number(o, "schema", "schema"); ok {
		if v, err := n.Int64(); err != nil || v > SchemaVersion {
			p.err = fmt.Errorf("%w: schema %s: written by a newer rehome; upgrade rehome to import it", ErrInvalid, n)
			return a
		}
	}
	object, _ := p.str(o, "object", "object")
	openAI := object == "assistant" || o["tools"] != nil || o["model"] != nil || o["tool_resources"] != nil
	a.ID, _ = p.str(o, "id", "id")
	a.Name, _ = p.str(o, "name", "name")
	a.Description, _ = p.str(o, "description", "description")
	a.Instructions, _ = p.str(o, "instructions", "instructions")
	a.Notes, _ = p.str(o, "notes", "notes")
	a.WelcomeMessage, _ = p.str(o, "welcome_message", "welcome_message")
	a.GizmoID, _ = p.str(o, "gizmo_id", "gizmo_id")
	a.Starters = append(p.stringList(o, "starters"), p.stringList(o, "conversation_starters")...)
	for _, key := range []string{"created", "updated"} {
		if s, ok := p.str(o, key, key); ok {
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				p.err = fmt.Errorf("%w: %s: expected a time such as 2024-05-01T12:00:00Z, got %q", ErrInvalid, key, s)
				return a
			}
			if key == "created" {
				a.Created = t
			} else {
				a.Updated = t
			}
		}
	}
	for i, v := range p.array(o, "capabilities", "capabilities") {
		path := fmt.Sprintf("capabilities[%d]", i)
		s, ok := v.(string)
		if !ok {
			p.fail(path, "a string", v)
			return a
		}
		switch key := capabilityKey(s); {
		case capabilityAliases[key] != "":
			a.Capabilities = append(a.Capabilities, capabilityAliases[key])
		case key == "knowledge" || key == "file_search" || key == "retrieval":
			a.Capabilities = append(a.Capabilities, Knowledge)
		case key == "actions" || key == "instructions" || key == "conversation_starters":
			// Derived from the record's own fields.
		default:
			p.warn("%s: %q is not a capability rehome stores (known: %s); it was left out", path, s, joinCaps(Capabilities))
		}
	}
	p.knowledge(o)
	a.Knowledge = p.knowledgeFiles
	p.actions(o, &a)
	if openAI {
		p.openAI(o, &a)
	}
	return a
}

func (p *parser) knowledge(o map[string]any) {
	for path, m := range p.objects(o, "knowledge") {
		var k KnowledgeFile
		k.Name, _ = p.str(m, "name", path+".name")
		k.SHA256, _ = p.str(m, "sha256", path+".sha256")
		k.Path, _ = p.str(m, "path", path+".path")
		if n, ok := p.number(m, "size", path+".size"); ok {
			sz, err := n.Int64()
			if err != nil || sz < 0 {
				p.err = fmt.Errorf("%w: %s.size: expected a whole number of bytes, got %s", ErrInvalid, path, n)
				return
			}
			k.Size = sz
		}
		if p.err != nil {
			return
		}
		if k.SHA256 != "" && !ids.IsSHA256(k.SHA256) {
			p.err = fmt.Errorf("%w: %s.sha256: expected 64 hexadecimal digits, got %q", ErrInvalid, path, k.SHA256)
			return
		}
		p.knowledgeFiles = append(p.knowledgeFiles, k)
	}
}

func (p *parser) actions(o map[string]any, a *Assistant) {
	for path, m := range p.objects(o, "actions") {
		var ac Action
		switch s := m["schema"].(type) {
		case string:
			ac.Schema = s
		case map[string]any:
			// An OpenAPI document given as JSON rather than as text.
			b, _ := json.MarshalIndent(s, "", "  ")
			ac.Schema = string(b)
		case nil:
		default:
			p.fail(path+".schema", "a string or an object", s)
			return
		}
		ac.Auth, _ = p.str(m, "auth", path+".auth")
		ac.PrivacyURL, _ = p.str(m, "privacy_url", path+".privacy_url")
		ac.Domain, _ = p.str(m, "domain", path+".domain")
		ac.Source, _ = p.str(m, "source", path+".source")
		if p.err != nil {
			return
		}
		a.Actions = append(a.Actions, ac)
	}
}

// openAI maps the Assistants API's fields: tools to capabilities and
// actions, and what has no place in the record to notes and warnings.
func (p *parser) openAI(o map[string]any, a *Assistant) {
	var notes []string
	if id, _ := p.str(o, "id", "id"); strings.HasPrefix(id, "asst_") {
		notes = append(notes, "OpenAI assistant id: "+id)
		a.ID = ""
	}
	if model, ok := p.str(o, "model", "model"); ok && model != "" {
		notes = append(notes, "ChatGPT model: "+model)
	}
	for _, key := range []string{"temperature", "top_p"} {
		if n, ok := p.number(o, key, key); ok {
			notes = append(notes, key+": "+n.String())
		}
	}
	fileSearch, ok := p.openAITools(o, a)
	if !ok {
		return
	}
	p.openAIResources(o, a, fileSearch)
	if a.Name == "" {
		// The Assistants API allows a null name; the record needs one.
		if id, _ := p.str(o, "id", "id"); id != "" {
			a.Name = "Untitled assistant (" + id + ")"
			p.warn("name: null in the JSON: stored as %q; rename it on the Assistants screen or with `rehome assistants edit`", a.Name)
		}
	}
	p.needsKnowledge = fileSearch
	if md := p.object(o, "metadata", "metadata"); len(md) > 0 {
		keys := make([]string, 0, len(md))
		for k := range md {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			notes = append(notes, fmt.Sprintf("metadata %s: %v", k, md[k]))
		}
	}
	if len(notes) > 0 {
		if a.Notes != "" {
			a.Notes += "\n"
		}
		a.Notes += "Imported from the OpenAI Assistants API.\n" + strings.Join(notes, "\n")
	}
}

// openAITools reads the assistant's tools: code interpreter, file search
// (fileSearch), functions (kept as actions) and the aliases rehome knows;
// ok is false where the JSON is refused (p.err says why).
func (p *parser) openAITools(o map[string]any, a *Assistant) (fileSearch, ok bool) {
	for i, v := range p.array(o, "tools", "tools") {
		path := fmt.Sprintf("tools[%d]", i)
		t, ok := v.(map[string]any)
		if !ok {
			p.fail(path, "an object", v)
			return false, false
		}
		typ, ok := p.str(t, "type", path+".type")
		if p.err != nil {
			return false, false
		}
		if !ok {
			p.err = fmt.Errorf("%w: %s.type: missing: expected code_interpreter, file_search or function", ErrInvalid, path)
			return false, false
		}
		switch typ {
		case "code_interpreter":
			a.Capabilities = append(a.Capabilities, CodeInterpreter)
		case "file_search", "retrieval":
			fileSearch = true
			a.Capabilities = append(a.Capabilities, Knowledge)
		case "function":
			if !p.functionTool(t, path, a) {
				return false, false
			}
		default:
			if c, ok := capabilityAliases[capabilityKey(typ)]; ok {
				a.Capabilities = append(a.Capabilities, c)
			} else {
				p.warn("%s: tool type %q has no local counterpart rehome knows; it was left out", path, typ)
			}
		}
	}
	return fileSearch, true
}

// functionTool keeps a function tool's JSON schema as an action; false
// where the tool is refused (p.err says why).
func (p *parser) functionTool(t map[string]any, path string, a *Assistant) bool {
	fn := p.object(t, "function", path+".function")
	if p.err != nil {
		return false
	}
	if fn == nil {
		p.err = fmt.Errorf("%w: %s.function: missing: a function tool needs its name and parameters", ErrInvalid, path)
		return false
	}
	name, ok := p.str(fn, "name", path+".function.name")
	if p.err != nil {
		return false
	}
	if !ok || name == "" {
		p.err = fmt.Errorf("%w: %s.function.name: missing: every function needs a name", ErrInvalid, path)
		return false
	}
	p.str(fn, "description", path+".function.description")
	p.object(fn, "parameters", path+".function.parameters")
	if p.err != nil {
		return false
	}
	// The function's JSON schema is kept as the action's schema text.
	b, _ := json.MarshalIndent(map[string]any{"type": "function", "function": fn}, "", "  ")
	a.Actions = append(a.Actions, Action{Schema: string(b), Auth: "none"})
	return true
}

// openAIResources warns of the files and vector stores that stayed on
// OpenAI's servers, and keeps the tool they belong to.
func (p *parser) openAIResources(o map[string]any, a *Assistant, fileSearch bool) {
	res := p.object(o, "tool_resources", "tool_resources")
	if ci := p.object(res, "code_interpreter", "tool_resources.code_interpreter"); ci != nil {
		if ids := p.stringList(ci, "file_ids"); len(ids) > 0 {
			p.remote(a, CodeInterpreter, "file", ids)
			p.warn("tool_resources.code_interpreter.file_ids: %d file(s) live on OpenAI's servers and are not in this JSON (%s): code interpreter is kept; download them and attach them with --knowledge", len(ids), strings.Join(ids, ", "))
		}
	}
	if fs := p.object(res, "file_search", "tool_resources.file_search"); fs != nil {
		if ids := p.stringList(fs, "vector_store_ids"); len(ids) > 0 {
			p.remote(a, Knowledge, "vector_store", ids)
			p.warn("tool_resources.file_search.vector_store_ids: %d vector store(s) on OpenAI's servers (%s); their files are not in this JSON: knowledge is kept; download them and attach them with --knowledge", len(ids), strings.Join(ids, ", "))
		}
	}
	if ids := p.stringList(o, "file_ids"); len(ids) > 0 {
		// Assistants API v1: one list for retrieval and code interpreter.
		tool := CodeInterpreter
		if fileSearch {
			tool = Knowledge
		}
		p.remote(a, tool, "file", ids)
		p.warn("file_ids: %d file(s) live on OpenAI's servers and are not in this JSON (%s): download them and attach them with --knowledge", len(ids), strings.Join(ids, ", "))
	}
}

// remote records files that stayed on OpenAI's servers.
func (p *parser) remote(a *Assistant, tool Capability, kind string, ids []string) {
	for _, id := range ids {
		if id = strings.TrimSpace(id); id != "" {
			a.RemoteFiles = append(a.RemoteFiles, RemoteFile{Tool: tool, Kind: kind, ID: id})
		}
	}
}

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
