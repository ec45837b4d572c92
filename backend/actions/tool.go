package actions

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
)

// Tool is one operation as the model is offered it: the shape of an
// OpenAI function tool's "function" object.
type Tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// Tools lists the schema's operations as tools.
func (s *Spec) Tools() []Tool {
	out := make([]Tool, len(s.Operations))
	for i, o := range s.Operations {
		out[i] = Tool{Name: o.ID, Description: o.Description, Parameters: o.Parameters}
	}
	return out
}

// operation builds one Operation: its parameters (the path item's, then
// the operation's own, which win) and its JSON body as one JSON Schema.
func (s *Spec) operation(place, path, method string, item *openapi3.PathItem, op *openapi3.Operation) (Operation, []Problem) {
	o := Operation{ID: op.OperationID, Method: method, Path: path, op: op}
	desc := op.Summary
	if strings.TrimSpace(op.Description) != "" {
		desc = op.Description
	}
	o.Description = cutRunes(strings.TrimSpace(desc), MaxDescription)
	if v, ok := op.Extensions["x-openai-isConsequential"].(bool); ok {
		o.Consequential = &v
	}
	args := &argSchema{props: map[string]any{}}
	params, order := mergedParams(item, op)
	probs := s.addParams(&o, args, place, params, order)
	probs = append(probs, undeclaredPathParams(place, path, params)...)
	if rb := op.RequestBody; rb != nil && rb.Value != nil {
		s.addBody(&o, args, rb.Value)
	}
	o.Parameters = map[string]any{"type": "object", "properties": args.props}
	if len(args.required) > 0 {
		o.Parameters["required"] = args.required
	}
	return o, probs
}

// argSchema is the JSON schema of an operation's arguments as the model
// sees them: its properties and the required ones.
type argSchema struct {
	props    map[string]any
	required []string
}

// mergedParams are the path item's parameters with the operation's over
// them, by "in:name", in the order first declared.
func mergedParams(item *openapi3.PathItem, op *openapi3.Operation) (map[string]*openapi3.Parameter, []string) {
	params := map[string]*openapi3.Parameter{}
	var order []string
	for _, list := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, pr := range list {
			if pr == nil || pr.Value == nil {
				continue
			}
			key := pr.Value.In + ":" + pr.Value.Name
			if _, ok := params[key]; !ok {
				order = append(order, key)
			}
			params[key] = pr.Value
		}
	}
	return params, order
}

// addParams adds the path, query and header parameters to the arguments
// (a cookie's is a problem; a path parameter the path lacks, a note).
func (s *Spec) addParams(o *Operation, args *argSchema, place string, params map[string]*openapi3.Parameter, order []string) []Problem {
	var probs []Problem
	for _, key := range order {
		p := params[key]
		switch p.In {
		case "path", "query", "header":
		default:
			probs = append(probs, Problem{place + ".parameters." + p.Name, fmt.Sprintf("in: %s is not sent by actions (path, query or header only)", p.In)})
			continue
		}
		sch := map[string]any{"type": "string"}
		if p.Schema != nil && p.Schema.Value != nil {
			sch = s.schemaMap(p.Schema)
		}
		if d := strings.TrimSpace(p.Description); d != "" {
			sch["description"] = cutRunes(d, MaxParamDescription)
		} else if d, ok := sch["description"].(string); ok {
			sch["description"] = cutRunes(d, MaxParamDescription)
		}
		if p.In == "path" && !strings.Contains(o.Path, "{"+p.Name+"}") {
			o.notes = append(o.notes, place+".parameters."+p.Name+": a path parameter the path does not contain: it is left out (add {"+p.Name+"} to the path to send it)")
			continue
		}
		args.props[p.Name] = sch
		req := p.Required || p.In == "path"
		if req {
			args.required = append(args.required, p.Name)
		}
		o.params = append(o.params, param{Name: p.Name, In: p.In, Required: req})
	}
	return probs
}

// undeclaredPathParams are the problems of the path's {segments} that no
// parameter declares.
func undeclaredPathParams(place, path string, params map[string]*openapi3.Parameter) []Problem {
	var probs []Problem
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			if _, ok := params["path:"+seg[1:len(seg)-1]]; !ok {
				probs = append(probs, Problem{place, "the path's " + seg + " has no parameter: declare it under parameters with in: path"})
			}
		}
	}
	return probs
}

// addBody adds a JSON request body to the arguments: its properties
// beside the parameters where no name clashes, else as "body". A body of
// another type leaves the operation out.
func (s *Spec) addBody(o *Operation, args *argSchema, rb *openapi3.RequestBody) {
	mt := rb.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		o.skip = fmt.Sprintf("its request body is %s, and actions send JSON only: this operation is left out (describe the body under content: application/json: schema to call it)", strings.Join(contentTypes(rb.Content), ", "))
		return
	}
	o.body = true
	body := s.schemaMap(mt.Schema)
	bp, _ := body["properties"].(map[string]any)
	flat := bp != nil
	for k := range bp {
		if _, clash := args.props[k]; clash {
			flat = false
		}
	}
	if !flat {
		args.props["body"] = body
		if rb.Required {
			args.required = append(args.required, "body")
		}
		return
	}
	o.bodyFlat = true
	for k, v := range bp {
		if m, ok := v.(map[string]any); ok {
			if d, ok := m["description"].(string); ok {
				m["description"] = cutRunes(d, MaxParamDescription)
			}
		}
		args.props[k] = v
	}
	if req, ok := body["required"].([]any); ok {
		for _, r := range req {
			if rs, ok := r.(string); ok {
				args.required = append(args.required, rs)
			}
		}
	}
}

func contentTypes(c openapi3.Content) []string {
	out := make([]string, 0, len(c))
	for k := range c {
		out = append(out, k)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return []string{"not described"}
	}
	return out
}

// schemaMap is a schema as plain JSON, its local $refs inlined (a
// recursive one cut off at its second visit).
func (s *Spec) schemaMap(ref *openapi3.SchemaRef) map[string]any {
	var v any
	if ref.Ref != "" {
		v = map[string]any{"$ref": ref.Ref}
	} else {
		b, err := json.Marshal(ref.Value)
		if err != nil {
			return map[string]any{}
		}
		_ = json.Unmarshal(b, &v)
	}
	out, _ := s.inline(v, map[string]int{}).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

func (s *Spec) inline(v any, seen map[string]int) any {
	switch t := v.(type) {
	case map[string]any:
		if ref, ok := t["$ref"].(string); ok && strings.HasPrefix(ref, "#/") {
			if seen[ref] > 0 {
				return map[string]any{"type": "object", "description": "(" + ref[strings.LastIndex(ref, "/")+1:] + ", nested again)"}
			}
			target := pointer(s.raw, ref)
			if target == nil {
				return map[string]any{}
			}
			seen[ref]++
			b, _ := json.Marshal(target) // a copy: the document stays as it was
			var cp any
			_ = json.Unmarshal(b, &cp)
			out := s.inline(cp, seen)
			seen[ref]--
			return out
		}
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = s.inline(e, seen)
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = s.inline(e, seen)
		}
		return out
	}
	return v
}

// pointer follows a local JSON pointer (#/components/schemas/Order).
func pointer(doc any, ref string) any {
	cur := doc
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}

// parseFunction reads an Assistants-API function tool: one schema-only
// operation, with no server to call.
func parseFunction(top map[string]any) (*Spec, error) {
	fn, _ := top["function"].(map[string]any)
	name, _ := fn["name"].(string)
	if fn == nil || !toolName.MatchString(name) {
		return nil, &SchemaError{[]Problem{{"function.name", "a function tool needs a name of letters, digits, _ and - (at most 64)"}}}
	}
	desc, _ := fn["description"].(string)
	params, _ := fn["parameters"].(map[string]any)
	if params == nil {
		params = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	s := &Spec{Title: name, SchemaOnly: true, raw: top}
	s.Operations = []Operation{{ID: name, Method: "", Description: cutRunes(strings.TrimSpace(desc), MaxDescription),
		Parameters: s.inline(params, map[string]int{}).(map[string]any)}}
	return s, nil
}

// cutRunes keeps the first n characters of s.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}
