package assistant

import (
	"fmt"
	"html"
	"regexp"
	"sort"
	"strings"
)

// ChatGPT's own description of a GPT is the JSON its backend-api gives
// for one (GET /backend-api/gizmos/g-…): {"gizmo": {...}, "tools": [...],
// "files": [...]}. The store's lists wrap each in {"resource": ...}
// ({"list": {"items": [...]}}), the owner's list and the sidebar in
// {"gizmo": ...} or give the gizmo bare; the owner's view carries
// instructions and action schemas, the store's view does not. These are
// told apart by shape, so the user converts nothing.

// gptRecord is one GPT as ChatGPT describes it, unwrapped.
type gptRecord struct {
	gizmo map[string]any
	tools []any
	files []any
	// top is the object the gizmo came in (nil for a bare gizmo), for
	// naming what else it held.
	top map[string]any
}

// asGPT unwraps v into a GPT record: {"resource": R}, {"gizmo": {"gizmo":
// G, ...}}, {"gizmo": G, "tools": …} or a bare gizmo G (an object with a
// g- id and display). ok is false for anything else.
func asGPT(v any) (gptRecord, bool) {
	m, _ := v.(map[string]any)
	if m == nil {
		return gptRecord{}, false
	}
	if r, ok := m["resource"].(map[string]any); ok && len(m) <= 3 {
		return asGPT(r)
	}
	if g, ok := m["gizmo"].(map[string]any); ok {
		if _, nested := g["gizmo"].(map[string]any); nested {
			// The sidebar's {"gizmo": {"gizmo": G, "tools": …}}.
			return asGPT(g)
		}
		if isGizmo(g) {
			rec := gptRecord{gizmo: g, top: m}
			rec.tools, _ = m["tools"].([]any)
			rec.files, _ = m["files"].([]any)
			return rec, true
		}
	}
	if isGizmo(m) {
		return gptRecord{gizmo: m}, true
	}
	return gptRecord{}, false
}

// isGizmo: a display object and a g- id (or a short_url, the store's
// link to it).
func isGizmo(m map[string]any) bool {
	id, _ := m["id"].(string)
	_, disp := m["display"].(map[string]any)
	return disp && (strings.HasPrefix(id, "g-") || m["short_url"] != nil)
}

// gptList returns the items of a list of GPTs: the store's {"list":
// {"items": …}}, the owner's or the sidebar's {"items": …}, the
// bootstrap's {"gizmos": …}, and the cursor that says more pages exist.
func gptList(m map[string]any) (items []any, cursor string, ok bool) {
	holder := m
	if l, isMap := m["list"].(map[string]any); isMap {
		holder = l
	}
	for _, key := range []string{"items", "gizmos"} {
		arr, isArr := holder[key].([]any)
		if !isArr {
			continue
		}
		if len(arr) > 0 {
			if _, gpt := asGPT(arr[0]); !gpt {
				return nil, "", false
			}
		}
		cursor, _ = holder["cursor"].(string)
		return arr, cursor, true
	}
	return nil, "", false
}

// entity is an HTML character reference, as the store's dumps write
// text ("&amp;", "&#39;").
var entity = regexp.MustCompile(`&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);`)

// escaped says the record's text was HTML-escaped as a whole, as the
// store's page dumps write it: its picture URL's query has &amp;, or a
// text field holds a character reference.
func (r gptRecord) escaped() bool {
	d, _ := r.gizmo["display"].(map[string]any)
	if u, _ := d["profile_picture_url"].(string); strings.Contains(u, "&amp;") {
		return true
	}
	for _, k := range []string{"name", "description", "welcome_message"} {
		if s, _ := d[k].(string); entity.MatchString(s) {
			return true
		}
	}
	if s, _ := r.gizmo["instructions"].(string); entity.MatchString(s) {
		return true
	}
	for _, s := range anyStrings(d["prompt_starters"]) {
		if entity.MatchString(s) {
			return true
		}
	}
	return false
}

func anyStrings(v any) []string {
	arr, _ := v.([]any)
	var out []string
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// parseGPT maps one GPT record to an assistant, saying in warnings what
// did not come along and why. The record is not stored here.
func parseGPT(r gptRecord) (Imported, error) {
	p := &gptParser{rec: r, unescape: r.escaped()}
	a := p.assistant()
	if p.err != nil {
		return Imported{}, p.err
	}
	if p.warnings == nil {
		p.warnings = []string{}
	}
	return Imported{Assistant: a, Warnings: p.warnings}, nil
}

type gptParser struct {
	rec      gptRecord
	unescape bool
	err      error
	warnings []string
}

func (p *gptParser) warn(format string, a ...any) {
	p.warnings = append(p.warnings, fmt.Sprintf(format, a...))
}

// text reads a string field, unescaped when the record is escaped.
func (p *gptParser) text(m map[string]any, key, path string) string {
	switch v := m[key].(type) {
	case nil:
		return ""
	case string:
		if p.unescape {
			return html.UnescapeString(v)
		}
		return v
	default:
		if p.err == nil {
			p.err = fmt.Errorf("%w: %s: expected a string, got %s", ErrInvalid, path, typeName(v))
		}
		return ""
	}
}

func (p *gptParser) assistant() Assistant {
	g := p.rec.gizmo
	d, _ := g["display"].(map[string]any)
	var a Assistant
	a.GizmoID, _ = g["id"].(string)
	a.Name = p.text(d, "name", "gizmo.display.name")
	if strings.TrimSpace(a.Name) == "" && p.err == nil {
		p.err = fmt.Errorf("%w: this GPT record (%s) has no gizmo.display.name: give the assistant a name in the file (display.name) or import it and rename it", ErrInvalid, orWord(a.GizmoID, "no id"))
		return a
	}
	a.Description = p.text(d, "description", "gizmo.display.description")
	a.WelcomeMessage = p.text(d, "welcome_message", "gizmo.display.welcome_message")
	for _, s := range anyStrings(d["prompt_starters"]) {
		if p.unescape {
			s = html.UnescapeString(s)
		}
		a.Starters = append(a.Starters, s)
	}
	a.Instructions = p.text(g, "instructions", "gizmo.instructions")
	if p.err != nil {
		return a
	}
	if p.unescape {
		p.warn("the record's text was HTML-escaped (&amp; for &), as the GPT store's pages write it: it is read unescaped")
	}
	if strings.TrimSpace(a.Instructions) == "" {
		p.warn("gizmo.instructions: not in this record (ChatGPT shows a GPT's instructions to its owner only): if the GPT is yours, save it with the export snippet (docs/chatgpt-export.md) and import that file: this assistant is updated in place")
	}
	p.tools(&a)
	p.files(&a)
	a.Notes = p.notes()
	p.leftOut()
	return a
}

// notes keeps what the record says of the GPT that has no field of its
// own: where it lived on ChatGPT, who made it, its categories and model.
func (p *gptParser) notes() string {
	g := p.rec.gizmo
	id, _ := g["id"].(string)
	lines := []string{"Imported from ChatGPT (" + orWord(id, "no id") + ")."}
	if u, _ := g["short_url"].(string); u != "" {
		lines = append(lines, "On ChatGPT: https://chatgpt.com/g/"+u)
	}
	if au, ok := g["author"].(map[string]any); ok {
		if n, _ := au["display_name"].(string); n != "" {
			lines = append(lines, "By: "+n)
		}
	}
	d, _ := g["display"].(map[string]any)
	if cats := anyStrings(d["categories"]); len(cats) > 0 {
		lines = append(lines, "Categories: "+strings.Join(cats, ", "))
	}
	for _, k := range []string{"model", "default_model"} {
		if m, _ := g[k].(string); m != "" {
			lines = append(lines, "ChatGPT model: "+m)
			break
		}
	}
	if v, ok := g["voice"].(map[string]any); ok {
		if n, _ := v["id"].(string); n != "" {
			lines = append(lines, "ChatGPT voice: "+n)
		}
	}
	return strings.Join(lines, "\n")
}

// gizmoRead are the gizmo's fields rehome reads or keeps in notes; the
// others are store bookkeeping, named once in the report.
var gizmoRead = map[string]bool{"id": true, "display": true, "instructions": true, "short_url": true, "author": true,
	"model": true, "default_model": true, "voice": true}

// topRead are the record's own fields rehome reads; product_features and
// the project limits describe ChatGPT's upload box, not the GPT.
var topRead = map[string]bool{"gizmo": true, "tools": true, "files": true, "product_features": true,
	"project_file_limits": true, "project_connector_scope_limits": true}

// leftOut names what the record holds that did not come along.
func (p *gptParser) leftOut() {
	var store []string
	for k, v := range p.rec.gizmo {
		if !gizmoRead[k] && v != nil {
			store = append(store, k)
		}
	}
	if len(store) > 0 {
		sort.Strings(store)
		p.warn("not kept (the store's bookkeeping of the GPT, nothing it does): gizmo.%s", strings.Join(store, ", gizmo."))
	}
	var other []string
	for k := range p.rec.top {
		if !topRead[k] {
			other = append(other, k)
		}
	}
	if len(other) > 0 {
		sort.Strings(other)
		p.warn("not read by rehome: %s", strings.Join(other, ", "))
	}
}

func orWord(s, word string) string {
	if s == "" {
		return word
	}
	return s
}
