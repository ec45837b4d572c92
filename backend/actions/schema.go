package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

	doc *openapi3.T
	raw any // the document as generic JSON, for local $refs
}

// Operation is one path + method of the schema: one tool.
type Operation struct {
	ID     string `json:"id"` // operationId: the tool's name
	Method string `json:"method"`
	Path   string `json:"path"`
	// Description is the summary or description, cut at 300 characters.
	Description string `json:"description"`
	// Consequential is x-openai-isConsequential: nil when absent.
	Consequential *bool `json:"consequential,omitempty"`
	// Parameters is the tool's JSON Schema: path, query and header
	// parameters and the JSON body's fields, local $refs inlined.
	Parameters map[string]any `json:"parameters"`

	params   []param
	body     bool // there is a JSON request body
	bodyFlat bool // its fields are top-level arguments (else under "body")
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
// ({"type":"function","function":{…}}). Every problem found is returned
// together, each with its place, in a *SchemaError.
func Parse(text string) (*Spec, error) {
	if strings.TrimSpace(text) == "" {
		return nil, &SchemaError{[]Problem{{"", "the schema is empty: paste the schema text from the GPT editor's Actions section"}}}
	}
	var raw any
	if err := yaml.Unmarshal([]byte(text), &raw); err != nil {
		return nil, &SchemaError{[]Problem{{"", "the schema is neither JSON nor YAML (" + err.Error() + ")"}}}
	}
	raw = plain(raw)
	top, _ := raw.(map[string]any)
	if top == nil {
		return nil, &SchemaError{[]Problem{{"", "the schema is not an object: expected an OpenAPI document with openapi, info and paths"}}}
	}
	if t, _ := top["type"].(string); t == "function" {
		return parseFunction(top)
	}
	if _, ok := top["openapi"]; !ok {
		if _, sw := top["swagger"]; sw {
			return nil, &SchemaError{[]Problem{{"swagger", "this is Swagger 2.0: convert it to OpenAPI 3 (ChatGPT takes 3.0 or 3.1 only)"}}}
		}
		return nil, &SchemaError{[]Problem{{"openapi", "missing: the first line of an OpenAPI schema says `openapi: 3.1.0` (or 3.0.x)"}}}
	}
	js, err := json.Marshal(raw)
	if err != nil {
		return nil, &SchemaError{[]Problem{{"", err.Error()}}}
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(js)
	if err != nil {
		return nil, &SchemaError{[]Problem{{"", loadProblem(err)}}}
	}
	s := &Spec{OpenAPI: doc.OpenAPI, doc: doc, raw: raw}
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
	probs = append(probs, validate(doc)...)
	if len(probs) > 0 {
		return nil, &SchemaError{probs}
	}
	return s, nil
}

// validate is kin-openapi's own check, every error kept.
func validate(doc *openapi3.T) []Problem {
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
	var out []Problem
	for _, e := range errs {
		out = append(out, Problem{"", e.Error()})
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
			if !toolName.MatchString(op.OperationID) {
				probs = append(probs, Problem{place + ".operationId", fmt.Sprintf("%q: use letters, digits, _ and - only, at most 64", op.OperationID)})
				continue
			}
			if other, dup := seen[op.OperationID]; dup {
				probs = append(probs, Problem{place + ".operationId", fmt.Sprintf("%q is also the operationId of %s: each must be unique", op.OperationID, other)})
				continue
			}
			seen[op.OperationID] = place
			o, pp := s.operation(place, p, strings.ToUpper(m), item, op)
			probs = append(probs, pp...)
			s.Operations = append(s.Operations, o)
		}
	}
	return probs
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
