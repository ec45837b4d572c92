package actions

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// OpenAPI 3.1 in YAML: every operation a tool, local $refs inlined (a
// 3.1 type array kept), the rule per x-openai-isConsequential.
func TestParse31YAML(t *testing.T) {
	s := mustParse(t, schema(t, "shop.yaml", "http://127.0.0.1:9"))
	if s.OpenAPI != "3.1.0" || s.Title != "Shop" || !slices.Equal(s.Servers, []string{"http://127.0.0.1:9/api"}) {
		t.Fatalf("spec %q %q %v", s.OpenAPI, s.Title, s.Servers)
	}
	want := []string{"placeOrder", "getOrder", "noteOrder", "away", "bad", "big", "slow"}
	got := s.Names()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("operations %v, want %v", got, want)
	}
	place, _ := s.Operation("placeOrder")
	b, _ := json.Marshal(place.Parameters)
	if strings.Contains(string(b), "$ref") || !strings.Contains(string(b), `"sku"`) || !strings.Contains(string(b), "The product's code.") {
		t.Fatalf("placeOrder's parameters keep a $ref or lost the body's fields: %s", b)
	}
	if req, _ := place.Parameters["required"].([]string); !slices.Equal(req, []string{"sku"}) {
		t.Fatalf("placeOrder required %v", place.Parameters["required"])
	}
	get, _ := s.Operation("getOrder")
	props := get.Parameters["properties"].(map[string]any)
	if _, ok := props["id"]; !ok || props["X-Trace"] == nil {
		t.Fatalf("getOrder's parameters %v: want the path and the header parameter", props)
	}
	if get.Description != "Look up one order by its id." {
		t.Fatalf("description %q", get.Description)
	}
	note, _ := s.Operation("noteOrder")
	for op, want := range map[*Operation]Rule{get: RuleNone, place: RuleEvery, note: RuleAsk} {
		if op.Rule() != want {
			t.Errorf("%s: rule %s, want %s", op.ID, op.Rule(), want)
		}
	}
}

// OpenAPI 3.0 in JSON: descriptions cut as ChatGPT cuts them.
func TestParse30JSONCuts(t *testing.T) {
	long := strings.Repeat("é", 1000)
	text := strings.NewReplacer("LONGDESC", long, "LONGPARAM", long).Replace(schema(t, "weather.json", "https://api.weather.test"))
	s := mustParse(t, text)
	op, err := s.Operation("forecast")
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(op.Description); n != MaxDescription {
		t.Fatalf("description is %d characters, want %d", n, MaxDescription)
	}
	city := op.Parameters["properties"].(map[string]any)["city"].(map[string]any)
	if n := utf8.RuneCountInString(city["description"].(string)); n != MaxParamDescription {
		t.Fatalf("parameter description is %d characters, want %d", n, MaxParamDescription)
	}
	if tools := s.Tools(); len(tools) != 1 || tools[0].Name != "forecast" {
		t.Fatalf("tools %v", tools)
	}
	if !slices.Equal(s.Hosts(), []string{"api.weather.test"}) {
		t.Fatalf("hosts %v", s.Hosts())
	}
}

// Every problem together, each with its place.
func TestParseProblemsWithPlaces(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"no operationId", `openapi: 3.1.0
info: {title: x, version: "1"}
servers: [{url: "https://api.example.com"}]
paths:
  /orders/{id}:
    get:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
`, "paths./orders/{id}.get: no operationId"},
		{"no servers", `openapi: 3.0.3
info: {title: x, version: "1"}
paths:
  /a:
    get: {operationId: a, responses: {"200": {description: ok}}}
`, "servers: missing"},
		{"swagger 2", `{"swagger": "2.0", "info": {"title": "x"}}`, "Swagger 2.0"},
		{"external ref", `openapi: 3.0.3
info: {title: x, version: "1"}
servers: [{url: "https://api.example.com"}]
paths:
  /a:
    get:
      operationId: a
      responses: {"200": {description: ok, content: {application/json: {schema: {$ref: "other.yaml#/Thing"}}}}}
`, "outside this document"},
		{"undeclared path param", `openapi: 3.0.3
info: {title: x, version: "1"}
servers: [{url: "https://api.example.com"}]
paths:
  /a/{id}:
    get: {operationId: a, responses: {"200": {description: ok}}}
`, "paths./a/{id}.get: the path's {id} has no parameter"},
		{"not yaml", "{{{", "neither JSON nor YAML"},
		{"empty", "  ", "empty"},
	}
	for _, c := range cases {
		_, err := Parse(c.text)
		var se *SchemaError
		if !errors.As(err, &se) || !errors.Is(err, ErrSchema) {
			t.Errorf("%s: err %v, want a SchemaError", c.name, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant it to say %q", c.name, err, c.want)
		}
	}
	// two problems at once: both said
	_, err := Parse(`openapi: 3.0.3
info: {title: x, version: "1"}
paths:
  /a:
    get: {responses: {"200": {description: ok}}}
`)
	if err == nil || !strings.Contains(err.Error(), "servers: missing") || !strings.Contains(err.Error(), "paths./a.get: no operationId") {
		t.Fatalf("both problems not said: %v", err)
	}
}

// An Assistants-API function tool is the same kind of tool, schema only:
// offered, never called.
func TestFunctionTool(t *testing.T) {
	s := mustParse(t, `{"type": "function", "function": {"name": "lookup_stock", "description": "Looks up stock.",
		"parameters": {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}}}`)
	if !s.SchemaOnly || len(s.Servers) != 0 || len(s.Tools()) != 1 || s.Tools()[0].Name != "lookup_stock" || s.Operations[0].Rule() != RuleNone {
		t.Fatalf("function tool %+v", s)
	}
	_, err := (&Client{AllowLocal: true}).Call(t.Context(), s, "lookup_stock", `{"sku":"A"}`)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "no server") {
		t.Fatalf("calling a function tool: %v", err)
	}
}

// ChatGPT's rule, every case: the flag wins; absent, GET needs no
// confirmation and every other method does.
func TestRuleTable(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		method string
		flag   *bool
		want   Rule
	}{
		{"GET", nil, RuleNone}, {"POST", nil, RuleEvery}, {"DELETE", nil, RuleEvery}, {"PUT", nil, RuleEvery},
		{"GET", &no, RuleAsk}, {"POST", &no, RuleAsk}, {"GET", &yes, RuleEvery}, {"POST", &yes, RuleEvery},
	}
	for _, c := range cases {
		o := Operation{Method: c.method, Consequential: c.flag}
		if got := o.Rule(); got != c.want {
			t.Errorf("%s with %v: %s, want %s", c.method, c.flag, got, c.want)
		}
	}
}
