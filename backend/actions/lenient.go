package actions

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// ChatGPT's GPT editor takes schemas that a strict OpenAPI reader refuses:
// an operation with no responses, a $ref to a component that is not
// there, a component whose name has spaces, an operationId with spaces.
// mend changes the decoded document the way ChatGPT reads it, before the
// OpenAPI library sees it, and says each change in words (the Spec's
// Warnings): what the schema said, and what rehome made of it.

// componentName is what OpenAPI allows as a component's name.
var componentName = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)

var notComponentRune = regexp.MustCompile(`[^a-zA-Z0-9._-]+`)

// mend applies every change to top and returns what it changed.
func mend(top map[string]any) []string {
	var warns []string
	warns = append(warns, renameComponents(top)...)
	warns = append(warns, fillResponses(top)...)
	warns = append(warns, openDangling(top)...)
	return warns
}

// renameComponents gives components with names OpenAPI refuses (spaces,
// other punctuation) a valid name and rewrites the $refs that name them.
func renameComponents(top map[string]any) []string {
	comps, _ := top["components"].(map[string]any)
	var warns []string
	renamed := map[string]string{} // old ref -> new ref
	for _, kind := range sortedKeys(comps) {
		group, ok := comps[kind].(map[string]any)
		if !ok || kind == "securitySchemes" {
			continue
		}
		for _, name := range sortedKeys(group) {
			if componentName.MatchString(name) {
				continue
			}
			fixed := strings.Trim(notComponentRune.ReplaceAllString(name, "_"), "_")
			if fixed == "" {
				fixed = "component"
			}
			for base, i := fixed, 2; group[fixed] != nil; i++ {
				fixed = fmt.Sprintf("%s_%d", base, i)
			}
			group[fixed] = group[name]
			delete(group, name)
			prefix := "#/components/" + kind + "/"
			renamed[prefix+name] = prefix + fixed
			renamed[prefix+url.PathEscape(name)] = prefix + fixed
			renamed[prefix+strings.ReplaceAll(name, " ", "%20")] = prefix + fixed
			warns = append(warns, fmt.Sprintf("components.%s.%s: a component name may hold only letters, digits, '.', '_' and '-': it is read as %q (its $refs follow)", kind, name, fixed))
		}
	}
	if len(renamed) > 0 {
		walkRefs(top, func(m map[string]any, ref string) {
			if to, ok := renamed[ref]; ok {
				m["$ref"] = to
			}
		})
	}
	return warns
}

// fillResponses gives an operation with no responses one unknown
// response, as ChatGPT reads it.
func fillResponses(top map[string]any) []string {
	paths, _ := top["paths"].(map[string]any)
	var warns []string
	for _, p := range sortedKeys(paths) {
		item, _ := paths[p].(map[string]any)
		for _, m := range methods {
			op, ok := item[m].(map[string]any)
			if !ok {
				continue
			}
			if r, ok := op["responses"].(map[string]any); ok && len(r) > 0 {
				for _, code := range sortedKeys(r) {
					resp, ok := r[code].(map[string]any)
					if !ok {
						continue
					}
					if ref, _ := resp["$ref"].(string); strings.HasPrefix(ref, "#/components/schemas/") {
						// A response that is a schema: ChatGPT reads it as
						// the JSON body of that response.
						r[code] = map[string]any{"description": "", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": ref}}}}
						warns = append(warns, fmt.Sprintf("paths.%s.%s.responses.%s: a $ref to the schema %s where a response belongs: read as a JSON response of that schema", p, m, code, ref))
						continue
					}
					if resp["$ref"] == nil && resp["description"] == nil {
						resp["description"] = ""
					}
				}
				continue
			}
			op["responses"] = map[string]any{"default": map[string]any{"description": "unknown response (the schema gives none)"}}
			warns = append(warns, fmt.Sprintf("paths.%s.%s: no responses: its answer is read as an unknown response, as ChatGPT does", p, m))
		}
	}
	return warns
}

// openDangling turns a local $ref that points at nothing into an open
// schema (any value), as ChatGPT does, and says so.
func openDangling(top map[string]any) []string {
	seen := map[string]bool{}
	var warns []string
	dropDanglingParams(top, func(ref string) {
		if !seen[ref] {
			seen[ref] = true
			warns = append(warns, fmt.Sprintf("$ref %s points at nothing in the schema: the parameter is left out", ref))
		}
	})
	walkRefs(top, func(m map[string]any, ref string) {
		if !strings.HasPrefix(ref, "#/") || pointer(top, ref) != nil {
			return
		}
		delete(m, "$ref")
		if strings.HasPrefix(ref, "#/components/responses/") {
			m["description"] = "unknown response (" + ref + " is not in the schema)"
		}
		if !seen[ref] {
			seen[ref] = true
			warns = append(warns, fmt.Sprintf("$ref %s points at nothing in the schema: read as an open schema (any value); add it under components to describe it", ref))
		}
	})
	return warns
}

// dropDanglingParams removes parameters that are a $ref to nothing: a
// parameter needs a name, which only its target could give.
func dropDanglingParams(top map[string]any, said func(ref string)) {
	paths, _ := top["paths"].(map[string]any)
	for _, p := range sortedKeys(paths) {
		item, _ := paths[p].(map[string]any)
		lists := []map[string]any{item}
		for _, m := range methods {
			if op, ok := item[m].(map[string]any); ok {
				lists = append(lists, op)
			}
		}
		for _, holder := range lists {
			params, ok := holder["parameters"].([]any)
			if !ok {
				continue
			}
			kept := params[:0]
			for _, e := range params {
				if m, ok := e.(map[string]any); ok {
					if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#/") && pointer(top, ref) == nil {
						said(ref)
						continue
					}
				}
				kept = append(kept, e)
			}
			holder["parameters"] = kept
		}
	}
}

// walkRefs calls fn for every object holding a string $ref.
func walkRefs(v any, fn func(m map[string]any, ref string)) {
	switch t := v.(type) {
	case map[string]any:
		if ref, ok := t["$ref"].(string); ok {
			fn(t, ref)
		}
		for _, k := range sortedKeys(t) {
			walkRefs(t[k], fn)
		}
	case []any:
		for _, e := range t {
			walkRefs(e, fn)
		}
	}
}

// asToolName makes an operationId a valid tool name (letters, digits, _
// and -, at most 64), as ChatGPT does with one that has spaces.
func asToolName(id string) string {
	s := strings.Trim(notToolRune.ReplaceAllString(strings.TrimSpace(id), "_"), "_")
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

var notToolRune = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
