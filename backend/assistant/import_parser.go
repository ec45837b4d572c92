package assistant

import (
	"encoding/json"
	"fmt"
	"iter"
	"sort"
	"strings"
	"time"

	"rehome/backend/ids"
)

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
