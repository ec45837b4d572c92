package actions

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The schemas under testdata/live are real action schemas of live GPTs
// (testdata/live/SOURCES.md names each one's repository, path and
// commit): ChatGPT took every one, so rehome must too. Before rehome read
// them as ChatGPT does, six of them were refused (an operationId with a
// space, no responses, a $ref to nothing, HTML-escaped text, no openapi
// line, "type: float").
func TestLiveSchemasAreAllAdded(t *testing.T) {
	files, err := filepath.Glob("testdata/live/*.*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".md") {
			continue
		}
		n++
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(string(b))
		if err != nil {
			t.Errorf("%s: refused, though ChatGPT took it: %v", filepath.Base(f), err)
			continue
		}
		if len(s.Operations) == 0 || len(s.Servers) == 0 {
			t.Errorf("%s: %d operations, servers %v", filepath.Base(f), len(s.Operations), s.Servers)
		}
		for _, o := range s.Operations {
			if !toolName.MatchString(o.ID) {
				t.Errorf("%s: tool name %q is not one a model can call", filepath.Base(f), o.ID)
			}
		}
	}
	if n < 12 {
		t.Fatalf("%d live schemas, want at least 12", n)
	}
}

func parseLive(t *testing.T, name string) *Spec {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/live", name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(string(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func warned(s *Spec, part string) bool {
	return slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, part) })
}

// What ChatGPT reads differently from the text is read the same way and
// said, each in words that name the place.
func TestLiveSchemasSayWhatWasReadDifferently(t *testing.T) {
	s := parseLive(t, "replit_create_repl.json")
	op, err := s.Operation("Create_Repl")
	if err != nil {
		t.Fatal(err)
	}
	if op.OperationID != "Create Repl" || !warned(s, `"Create Repl" is not a valid tool name`) || !warned(s, "the model calls it Create_Repl") {
		t.Fatalf("Create Repl: op %+v, warnings %q", op.OperationID, s.Warnings)
	}

	s = parseLive(t, "video_insights_no_responses.json")
	if !warned(s, "no responses: its answer is read as an unknown response") {
		t.Fatalf("no responses: %q", s.Warnings)
	}

	for _, name := range []string{"g-V2KIUZSj0_5.json", "slide_maker.yaml"} {
		s = parseLive(t, name)
		if !warned(s, "points at nothing in the schema: read as an open schema") {
			t.Fatalf("%s: dangling $ref not said: %q", name, s.Warnings)
		}
	}

	s = parseLive(t, "webpilot_html_escaped.json")
	if !warned(s, "HTML-escaped") || s.Title != "webPilot" {
		t.Fatalf("escaped: title %q, warnings %q", s.Title, s.Warnings)
	}

	s = parseLive(t, "seo_no_openapi_line.json")
	if !warned(s, "no version line") {
		t.Fatalf("no openapi line: %q", s.Warnings)
	}

	s = parseLive(t, "invideo_type_float.json")
	if !warned(s, `unsupported 'type' value "float"`) {
		t.Fatalf("type float: %q", s.Warnings)
	}

	s = parseLive(t, "youtube_summarizer_response_is_schema.json")
	if !warned(s, "where a response belongs: read as a JSON response of that schema") {
		t.Fatalf("a response that is a schema: %q", s.Warnings)
	}

	s = parseLive(t, "zotero_long_operationid.json")
	if !warned(s, "actions send JSON only: this operation is left out") {
		t.Fatalf("multipart body: %q", s.Warnings)
	}
	for _, o := range s.Operations {
		if len(o.ID) > 64 {
			t.Fatalf("tool name %q is %d long", o.ID, len(o.ID))
		}
	}
}

// A component name with spaces (and the $refs to it) and two operations
// with one operationId are read, as ChatGPT reads them.
func TestComponentNamesAndDuplicateIDs(t *testing.T) {
	s, err := Parse(`openapi: 3.1.0
info: {title: x, version: "1"}
servers: [{url: "https://api.example.com"}]
paths:
  /a:
    get:
      operationId: same
      responses: {"200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Search Result"}}}}}
  /b:
    post:
      operationId: same
      requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/Search%20Query"}}}}
      responses: {"200": {description: ok}}
components:
  schemas:
    Search Result: {type: object, properties: {title: {type: string}}}
    Search Query: {type: object, properties: {q: {type: string}}}
`)
	if err != nil {
		t.Fatal(err)
	}
	if !warned(s, `components.schemas.Search Query: a component name may hold only letters`) || !warned(s, `read as "Search_Query"`) {
		t.Fatalf("rename not said: %q", s.Warnings)
	}
	if !slices.Equal(s.Names(), []string{"same", "same_2"}) || !warned(s, "the model calls this one same_2") {
		t.Fatalf("names %v, warnings %q", s.Names(), s.Warnings)
	}
	op, _ := s.Operation("same_2")
	props, _ := op.Parameters["properties"].(map[string]any)
	if _, ok := props["q"]; !ok {
		t.Fatalf("the renamed component's fields did not reach the tool: %v", op.Parameters)
	}
}

// A refusal that remains names the fix.
func TestRemainingRefusalsNameTheFix(t *testing.T) {
	_, err := Parse(`openapi: 3.1.0
info: {title: x, version: "1"}
servers: [{url: "https://api.example.com"}]
paths:
  /upload:
    post:
      operationId: upload
      requestBody: {content: {multipart/form-data: {schema: {type: object}}}}
      responses: {"200": {description: ok}}
`)
	if err == nil || !strings.Contains(err.Error(), "no operation rehome can call") {
		t.Fatalf("a schema with nothing to call: %v", err)
	}
	_, err = Parse(`openapi: 3.1.0
info: {title: x, version: "1"}
servers: [{url: "https://api.example.com"}]
paths:
  /a:
    get: {operationId: "  ", responses: {"200": {description: ok}}}
`)
	if err == nil || !strings.Contains(err.Error(), "give it a name of letters") {
		t.Fatalf("an operationId of spaces: %v", err)
	}
}

// The auth components.securitySchemes declares is read as the GPT editor
// signs it.
func TestDeclaredAuthOfLiveSchemas(t *testing.T) {
	cases := map[string]Auth{
		"replit_create_repl.json":  {Type: AuthBearer},
		"g-KU2U5o7Wj_5.json":       {Type: AuthHeader, Header: "X-Cv-Secret"},
		"g-NgAcklHd8_4.json":       {Type: AuthHeader, Header: "Authorization"},
		"stock_rel_sibling.json":   {Type: AuthHeader, Header: "X-Api-Key"},
		"ruvnet_google-oauth.json": {Type: AuthOAuth, AuthURL: "https://accounts.google.com/o/oauth2/auth", TokenURL: "https://accounts.google.com/o/oauth2/token"},
		"wolfram.json":             {Type: AuthNone},
	}
	for name, want := range cases {
		d := parseLive(t, name).DeclaredAuth()
		got := d.Auth
		got.Scope = ""
		if got != want {
			t.Errorf("%s: auth %+v, want %+v (note %q)", name, d.Auth, want, d.Note)
		}
	}
	d := parseLive(t, "ruvnet_github-api.json").DeclaredAuth()
	if d.Auth.Type != AuthOAuth || d.Auth.Scope == "" || d.Auth.Waiting(false, false) == "" {
		t.Fatalf("github oauth: %+v waiting %q", d, d.Auth.Waiting(false, false))
	}
	d = parseLive(t, "zotero_long_operationid.json").DeclaredAuth()
	if d.Auth.Type != AuthNone || !strings.Contains(d.Note, "authorizationCode") {
		t.Fatalf("an oauth2 password flow: %+v", d)
	}
}
