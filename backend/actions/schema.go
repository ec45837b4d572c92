package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"gopkg.in/yaml.v3"
)

// Problem is one thing wrong with a schema, with its place in the
// document (`paths./orders/{id}.get`).
type Problem struct {
	Place   string `json:"place"`
	Message string `json:"message"`
}

// String is the problem as the user reads it: place, then message.
func (p Problem) String() string {
	if p.Place == "" {
		return p.Message
	}
	return p.Place + ": " + p.Message
}

// SchemaError lists every problem found in a schema. It wraps ErrSchema.
type SchemaError struct{ Problems []Problem }

// Error lists every problem, then what to do.
func (e *SchemaError) Error() string {
	s := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		s[i] = p.String()
	}
	return ErrSchema.Error() + ": " + strings.Join(s, "; ") + ": fix them in the schema text and add it again"
}

// Unwrap makes errors.Is(err, ErrSchema) true.
func (e *SchemaError) Unwrap() error { return ErrSchema }

// Spec is one checked schema: its servers and its operations.
type Spec struct {
	Title   string `json:"title"`
	OpenAPI string `json:"openapi"` // "3.0.3", "3.1.0"; "" for a function tool
	// Servers are the schema's servers; calls go to the first, and only
	// hosts named here are ever called. Empty for a function tool.
	Servers    []string    `json:"servers"`
	Operations []Operation `json:"operations"`
	// SchemaOnly: a function tool of the Assistants API, with no server
	// for rehome to call.
	SchemaOnly bool `json:"schema_only,omitempty"`
	// Warnings say what rehome read differently from the text, as
	// ChatGPT does (an operationId with spaces, no responses, a $ref to
	// nothing): the schema is taken, and the user told.
	Warnings []string `json:"warnings,omitempty"`

	doc *openapi3.T
	raw any // the document as generic JSON, for local $refs
}

// Operation is one path + method of the schema: one tool.
type Operation struct {
	ID string `json:"id"` // operationId: the tool's name
	// OperationID is the schema's operationId when ID had to differ from
	// it (spaces and other characters a tool name cannot hold).
	OperationID string `json:"operation_id,omitempty"`
	Method      string `json:"method"`
	Path        string `json:"path"`
	// Description is the summary or description, cut at 300 characters.
	Description string `json:"description"`
	// Consequential is x-openai-isConsequential: nil when absent.
	Consequential *bool `json:"consequential,omitempty"`
	// Parameters is the tool's JSON Schema: path, query and header
	// parameters and the JSON body's fields, local $refs inlined.
	Parameters map[string]any `json:"parameters"`

	params   []param
	body     bool     // there is a JSON request body
	bodyFlat bool     // its fields are top-level arguments (else under "body")
	skip     string   // why the operation cannot be called, when it cannot
	notes    []string // what of it was left out, for the Spec's Warnings
	op       *openapi3.Operation
}

type param struct {
	Name, In string
	Required bool
}

// Limits ChatGPT applies, which rehome applies the same way.
const (
	MaxDescription      = 300 // characters of an operation's description
	MaxParamDescription = 700 // characters of a parameter's description
)

var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Parse reads a schema as the GPT editor holds it: OpenAPI 3.0 or 3.1, in
// JSON or YAML, or an Assistants-API function tool
// ({"type":"function","function":{…}}). It takes what ChatGPT takes: what
// a strict reader would refuse but ChatGPT reads anyway (an operationId
// with spaces, no responses, a $ref to nothing, OpenAPI's own rules
// broken) is read as ChatGPT reads it and said in the Spec's Warnings.
// What rehome cannot call is a problem: every one found is returned
// together, each with its place, in a *SchemaError.
func Parse(text string) (*Spec, error) {
	if strings.TrimSpace(text) == "" {
		return nil, &SchemaError{[]Problem{{"", "the schema is empty: paste the schema text from the GPT editor's Actions section"}}}
	}
	top, warns, err := decode(text)
	if err != nil {
		return nil, err
	}
	if t, _ := top["type"].(string); t == "function" {
		return parseFunction(top)
	}
	if _, ok := top["openapi"]; !ok {
		if _, sw := top["swagger"]; sw {
			return nil, &SchemaError{[]Problem{{"swagger", "this is Swagger 2.0: convert it to OpenAPI 3 (ChatGPT takes 3.0 or 3.1 only)"}}}
		}
		if _, ok := top["paths"]; !ok {
			return nil, &SchemaError{[]Problem{{"openapi", "missing: the first line of an OpenAPI schema says `openapi: 3.1.0` (or 3.0.x)"}}}
		}
		top["openapi"] = "3.1.0"
		warns = append(warns, "openapi: no version line (`openapi: 3.1.0`): read as OpenAPI 3.1.0")
	}
	warns = append(warns, mend(top)...)
	js, err := json.Marshal(top)
	if err != nil {
		return nil, &SchemaError{[]Problem{{"", err.Error()}}}
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(js)
	if err != nil {
		return nil, &SchemaError{[]Problem{{"", loadProblem(err)}}}
	}
	s := &Spec{OpenAPI: doc.OpenAPI, doc: doc, raw: any(top), Warnings: warns}
	if doc.Info != nil {
		s.Title = doc.Info.Title
	}
	var probs []Problem
	switch doc.OpenAPIMajorMinor() {
	case "3.0", "3.1":
	default:
		probs = append(probs, Problem{"openapi", fmt.Sprintf("version %q: rehome reads OpenAPI 3.0 and 3.1", doc.OpenAPI)})
	}
	probs = append(probs, s.checkServers()...)
	probs = append(probs, s.operations()...)
	if len(probs) > 0 {
		return nil, &SchemaError{probs}
	}
	s.Warnings = append(s.Warnings, validate(doc)...)
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	return s, nil
}

// decode reads the text as JSON, else as YAML (JSON first: JSON may hold
// tabs, which YAML refuses), else as either HTML-unescaped, as the GPT
// store's dumps write schemas (&gt; for >).
func decode(text string) (map[string]any, []string, error) {
	var warns []string
	raw, err := decodeText(text)
	if err != nil {
		if un := html.UnescapeString(text); un != text {
			if r, err2 := decodeText(un); err2 == nil {
				raw, err = r, nil
				warns = append(warns, "the schema text was HTML-escaped (&gt; for >, &amp; for &), as the GPT store's pages write it: it is read unescaped")
			}
		}
	}
	if err != nil {
		return nil, nil, &SchemaError{[]Problem{{"", "the schema is neither JSON nor YAML (" + err.Error() + ")"}}}
	}
	top, _ := plain(raw).(map[string]any)
	if top == nil {
		return nil, nil, &SchemaError{[]Problem{{"", "the schema is not an object: expected an OpenAPI document with openapi, info and paths"}}}
	}
	return top, warns, nil
}

func decodeText(text string) (any, error) {
	var raw any
	if json.Unmarshal([]byte(text), &raw) == nil {
		return raw, nil
	}
	if err := yaml.Unmarshal([]byte(text), &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// maxSchemaWarnings bounds what validate says of one schema.
const maxSchemaWarnings = 8

// validate is kin-openapi's own check. ChatGPT does not apply it (live
// GPTs' schemas have arrays without items, "type: float", security
// requirements naming no scheme), so what it finds is said, not refused.
func validate(doc *openapi3.T) []string {
	opts := []openapi3.ValidationOption{openapi3.EnableMultiError(), openapi3.DisableExamplesValidation()}
	if doc.IsOpenAPI31OrLater() {
		opts = append(opts, openapi3.IsOpenAPI31OrLater())
	}
	err := doc.Validate(context.Background(), opts...)
	if err == nil {
		return nil
	}
	var me openapi3.MultiError
	var errs []error
	if errors.As(err, &me) {
		errs = me
	} else {
		errs = []error{err}
	}
	var out []string
	for i, e := range errs {
		if i == maxSchemaWarnings {
			out = append(out, fmt.Sprintf("and %d more places where the schema does not follow OpenAPI", len(errs)-i))
			break
		}
		out = append(out, "not OpenAPI as written, read as ChatGPT reads it: "+e.Error())
	}
	return out
}

func loadProblem(err error) string {
	var ext *openapi3.DisallowedExternalRefError
	if errors.As(err, &ext) {
		return "a $ref points outside this document (" + err.Error() + "): paste one self-contained schema, as the GPT editor needs"
	}
	return err.Error()
}

func (s *Spec) checkServers() []Problem {
	if len(s.doc.Servers) == 0 {
		return []Problem{{"servers", "missing: add `servers: [{url: https://your.api}]`, the address rehome calls"}}
	}
	var probs []Problem
	for i, sv := range s.doc.Servers {
		place := fmt.Sprintf("servers[%d].url", i)
		if sv == nil {
			// `servers:` with an empty item (`-`): the fuzzer's panic.
			probs = append(probs, Problem{place, "missing: write the item as {url: https://your.api}"})
			continue
		}
		u, err := url.Parse(sv.URL)
		if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			probs = append(probs, Problem{place, fmt.Sprintf("%q is not a full http(s) address: write it as https://host/base", sv.URL)})
			continue
		}
		if strings.Contains(sv.URL, "{") {
			probs = append(probs, Problem{place, fmt.Sprintf("%q has {variables}: write the address itself", sv.URL)})
			continue
		}
		s.Servers = append(s.Servers, strings.TrimRight(sv.URL, "/"))
	}
	return probs
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// operations turns each path + method into an Operation.
func (s *Spec) operations() []Problem {
	var probs []Problem
	if s.doc.Paths == nil || s.doc.Paths.Len() == 0 {
		return []Problem{{"paths", "no operations: add at least one path with a method"}}
	}
	paths := s.doc.Paths.Keys()
	sort.Strings(paths)
	seen := map[string]string{}
	for _, p := range paths {
		item := s.doc.Paths.Value(p)
		if item == nil {
			continue
		}
		for _, m := range methods {
			op := item.GetOperation(strings.ToUpper(m))
			if op == nil {
				continue
			}
			place := "paths." + p + "." + m
			if op.OperationID == "" {
				probs = append(probs, Problem{place, "no operationId: give it one (it is the tool's name the model calls)"})
				continue
			}
			name := op.OperationID
			if !toolName.MatchString(name) {
				name = asToolName(op.OperationID)
				if name == "" {
					probs = append(probs, Problem{place + ".operationId", fmt.Sprintf("%q has no letter or digit: give it a name of letters, digits, _ and - (it is the tool's name the model calls)", op.OperationID)})
					continue
				}
				if _, taken := seen[name]; taken {
					name = uniqueTool(name, seen)
				}
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s.operationId %q is not a valid tool name (letters, digits, _ and - only, at most 64): the model calls it %s", place, op.OperationID, name))
			}
			if other, dup := seen[name]; dup {
				name = uniqueTool(name, seen)
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s.operationId %q is also the operationId of %s: the model calls this one %s", place, op.OperationID, other, name))
			}
			seen[name] = place
			o, pp := s.operation(place, p, strings.ToUpper(m), item, op)
			if name != op.OperationID {
				o.ID, o.OperationID = name, op.OperationID
			}
			s.Warnings = append(s.Warnings, o.notes...)
			if o.skip != "" {
				s.Warnings = append(s.Warnings, place+": "+o.skip)
				continue
			}
			probs = append(probs, pp...)
			s.Operations = append(s.Operations, o)
		}
	}
	if len(probs) == 0 && len(s.Operations) == 0 {
		probs = append(probs, Problem{"paths", "no operation rehome can call (see the warnings): actions send JSON bodies, path, query and header parameters"})
	}
	return probs
}

// uniqueTool adds _2, _3 … to name until no operation has it.
func uniqueTool(name string, seen map[string]string) string {
	for i := 2; ; i++ {
		n := fmt.Sprintf("%s_%d", name, i)
		if len(n) > 64 {
			n = fmt.Sprintf("%s_%d", name[:64-len(fmt.Sprint(i))-1], i)
		}
		if _, taken := seen[n]; !taken {
			return n
		}
	}
}

// Operation returns the operation named id.
func (s *Spec) Operation(id string) (*Operation, error) {
	for i := range s.Operations {
		if s.Operations[i].ID == id {
			return &s.Operations[i], nil
		}
	}
	names := make([]string, len(s.Operations))
	for i, o := range s.Operations {
		names[i] = o.ID
	}
	return nil, fmt.Errorf("%w %q: the schema has %s", ErrNoOperation, id, strings.Join(names, ", "))
}

// Names lists the operations' names.
func (s *Spec) Names() []string {
	out := make([]string, len(s.Operations))
	for i, o := range s.Operations {
		out[i] = o.ID
	}
	return out
}

// Hosts lists the servers' hosts (host:port as written).
func (s *Spec) Hosts() []string {
	var out []string
	for _, sv := range s.Servers {
		if u, err := url.Parse(sv); err == nil && !slices.Contains(out, u.Host) {
			out = append(out, u.Host)
		}
	}
	return out
}

// plain turns what YAML decoded into JSON's shapes (map[string]any keys).
func plain(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = plain(e)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = plain(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = plain(e)
		}
		return t
	}
	return v
}
