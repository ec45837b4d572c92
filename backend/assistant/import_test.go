package assistant

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rehome/backend/store"
)

func newService(t *testing.T) *Service {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return NewService(st, filepath.Join(t.TempDir(), KnowledgeDir))
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sha256 of "hello\n".
const helloSHA = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"

// The fixture has the shape of the Assistants API's assistant object as
// its reference documents it (v2: tools, tool_resources, metadata,
// temperature, top_p, response_format).
func TestImportOpenAIAssistantObject(t *testing.T) {
	data, err := os.ReadFile("testdata/openai_assistant.json")
	if err != nil {
		t.Fatal(err)
	}
	imp, err := ParseJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	a := imp.Assistant
	if a.Name != "Quarterly Numbers" || !strings.HasPrefix(a.Instructions, "You are a careful financial analyst.\nWhen") || a.Description == "" {
		t.Fatalf("%+v", a)
	}
	if a.ID != "" {
		t.Errorf("the OpenAI id %q was kept as the record id", a.ID)
	}
	// file_search is a capability whether or not its files came along.
	if !slices.Equal(a.Capabilities, []Capability{CodeInterpreter, Knowledge}) {
		t.Errorf("capabilities %v", a.Capabilities)
	}
	if len(a.Actions) != 1 || a.Actions[0].Auth != "none" {
		t.Fatalf("actions %+v", a.Actions)
	}
	var tool struct {
		Type     string `json:"type"`
		Function struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal([]byte(a.Actions[0].Schema), &tool); err != nil || tool.Type != "function" || tool.Function.Name != "get_exchange_rate" || tool.Function.Parameters["required"] == nil {
		t.Fatalf("function schema not kept: %v %s", err, a.Actions[0].Schema)
	}
	for _, want := range []string{"OpenAI assistant id: asst_9fQk2LrT7bYw1mZc4NdE8sXa", "ChatGPT model: gpt-4o", "temperature: 0.2", "metadata team: finance"} {
		if !strings.Contains(a.Notes, want) {
			t.Errorf("notes lack %q:\n%s", want, a.Notes)
		}
	}
	// And it stores: the record validates.
	svc := newService(t)
	stored, err := svc.Import(data, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stored.Assistant.ID == "" || stored.Assistant.Created.IsZero() {
		t.Fatalf("%+v", stored.Assistant)
	}
	joined := strings.Join(stored.Warnings, "\n")
	for _, want := range []string{"vector_store_ids: 1 vector store(s)", "code_interpreter.file_ids: 1 file(s)", "file_search is on, but no knowledge files"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings lack %q:\n%s", want, joined)
		}
	}
	// With the files attached, file_search has what it needs.
	withFiles, err := svc.Import(data, ImportOptions{Knowledge: []string{writeFile(t, t.TempDir(), "sales.csv", "a,b\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(withFiles.Warnings, "\n"), "no knowledge files") || len(withFiles.Assistant.Knowledge) != 1 {
		t.Fatalf("%+v", withFiles)
	}
}

func TestImportNamesTheBadField(t *testing.T) {
	cases := []struct{ name, json, want string }{
		{"instructions number", `{"name":"x","instructions":42}`, "instructions: expected a string, got number"},
		{"name array", `{"name":["x"]}`, "name: expected a string, got array"},
		{"tools not array", `{"name":"x","tools":{"type":"code_interpreter"}}`, "tools: expected an array, got object"},
		{"tool type number", `{"name":"x","tools":[{"type":1}]}`, "tools[0].type: expected a string, got number"},
		{"tool type missing", `{"name":"x","tools":[{}]}`, "tools[0].type: missing"},
		{"function without name", `{"name":"x","tools":[{"type":"code_interpreter"},{"type":"function","function":{"parameters":{}}}]}`, "tools[1].function.name: missing"},
		{"function parameters string", `{"name":"x","tools":[{"type":"function","function":{"name":"f","parameters":"{}"}}]}`, "tools[0].function.parameters: expected an object, got string"},
		{"starter object", `{"name":"x","starters":["a",{"text":"b"}]}`, "starters[1]: expected a string, got object"},
		{"knowledge size string", `{"name":"x","knowledge":[{"name":"a.pdf","size":"12"}]}`, "knowledge[0].size: expected a number, got string"},
		{"knowledge bad hash", `{"name":"x","knowledge":[{"name":"a.pdf","sha256":"abc"}]}`, "knowledge[0].sha256: expected 64 hexadecimal digits"},
		{"action schema number", `{"name":"x","actions":[{"schema":7}]}`, "actions[0].schema: expected a string or an object, got number"},
		{"temperature string", `{"name":"x","model":"gpt-4o","temperature":"hot"}`, "temperature: expected a number, got string"},
		{"tool_resources array", `{"name":"x","model":"gpt-4o","tool_resources":[]}`, "tool_resources: expected an object, got array"},
		{"created not a time", `{"name":"x","created":"yesterday"}`, `created: expected a time such as 2024-05-01T12:00:00Z, got "yesterday"`},
		{"newer schema", `{"schema":9,"name":"x"}`, "written by a newer rehome"},
		{"top-level array", `[{"name":"x"}]`, "expected a JSON object describing one assistant, got array"},
		{"truncated", "{\n  \"name\": \"x\",\n  \"instructions\": \"abc", "the JSON ends early at line 3"},
		{"syntax error", "{\n  \"name\": \"x\",\n  \"instructions\" \"abc\"\n}", "broken JSON at line 3, column 18"},
		{"empty", ``, "the file is empty"},
		{"two values", `{"name":"a"} {"name":"b"}`, "more than one JSON value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseJSON([]byte(c.json))
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestImportIgnoresUnknownFieldsAndMapsCapabilityNames(t *testing.T) {
	in := `{
	  "name": "  Trip planner ",
	  "instructions": "Plan trips.",
	  "conversation_starters": ["Plan a weekend in Porto", ""],
	  "capabilities": ["Web Search", "DALL·E Image Generation", "Code Interpreter & Data Analysis", "Canvas", "file uploads", "knowledge"],
	  "gizmo_theme": {"color": "#ff0000"},
	  "null_field": null,
	  "actions": [{"schema": {"openapi": "3.1.0", "info": {"title": "Weather"}, "servers": [{"url": "https://api.weather.example"}]}, "auth": "api_key"}]
	}`
	imp, err := newService(t).Import([]byte(in), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := imp.Assistant
	if a.Name != "Trip planner" || !slices.Equal(a.Starters, []string{"Plan a weekend in Porto"}) {
		t.Fatalf("%+v", a)
	}
	if !slices.Equal(a.Capabilities, []Capability{WebBrowsing, ImageGeneration, CodeInterpreter, Canvas, Knowledge}) {
		t.Fatalf("capabilities %v", a.Capabilities)
	}
	if len(a.Actions) != 1 || !strings.Contains(a.Actions[0].Schema, `"title": "Weather"`) || a.Actions[0].Auth != "api_key" {
		t.Fatalf("actions %+v", a.Actions)
	}
	w := strings.Join(imp.Warnings, "\n")
	if !strings.Contains(w, `capabilities[4]: "file uploads" is not a capability rehome stores`) || strings.Contains(w, `capabilities[5]`) {
		t.Fatalf("warnings:\n%s", w)
	}
}

func TestImportRehomeRecord(t *testing.T) {
	svc := newService(t)
	orig, err := svc.Create(Assistant{Name: "Editor", Instructions: "Edit.", Starters: []string{"Tighten this"}, Capabilities: []Capability{Canvas}, Notes: "n"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(orig)
	imp, err := svc.Import(data, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := imp.Assistant
	if got.ID == orig.ID || got.Name != orig.Name || got.Instructions != orig.Instructions || !slices.Equal(got.Starters, orig.Starters) || !slices.Equal(got.Capabilities, orig.Capabilities) || got.Notes != "n" {
		t.Fatalf("import of a record: %+v", got)
	}
}

func TestKnowledgeIsCopiedIntoTheLibrary(t *testing.T) {
	dir := t.TempDir()
	hello := writeFile(t, dir, "hello.txt", "hello\n")
	same := writeFile(t, dir, "copy of hello.txt", "hello\n")
	k, err := HashFile(hello)
	if err != nil {
		t.Fatal(err)
	}
	if k.Name != "hello.txt" || k.Size != 6 || k.SHA256 != helloSHA || k.Path != hello {
		t.Fatalf("%+v", k)
	}
	svc := newService(t)
	imp, err := svc.Import([]byte(`{"name":"K","instructions":"x"}`), ImportOptions{Knowledge: []string{hello, same}})
	if err != nil {
		t.Fatal(err)
	}
	own := svc.Library().PathFor(helloSHA, "hello.txt")
	if len(imp.Assistant.Knowledge) != 1 || imp.Assistant.Knowledge[0].Path != own || imp.Assistant.Knowledge[0].Name != "hello.txt" || !strings.Contains(strings.Join(imp.Warnings, ""), "the same file as knowledge") {
		t.Fatalf("duplicate not folded: %+v %v", imp.Assistant.Knowledge, imp.Warnings)
	}
	// The file was copied into the library, once, named by its hash.
	if entries, _ := os.ReadDir(filepath.Dir(own)); len(entries) != 1 || fileSHA(t, own) != helloSHA {
		t.Fatalf("%d files in the library", len(entries))
	}
	_, err = svc.Import([]byte(`{"name":"K"}`), ImportOptions{Knowledge: []string{filepath.Join(dir, "nope.pdf")}})
	if err == nil || !strings.Contains(err.Error(), "nope.pdf: not found: check the path") {
		t.Fatalf("missing file: %v", err)
	}
	_, err = svc.Import([]byte(`{"name":"K"}`), ImportOptions{Knowledge: []string{dir}})
	if err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Fatalf("folder: %v", err)
	}
}

func TestKnowledgeReferencesInTheJSON(t *testing.T) {
	dir := t.TempDir()
	hello := writeFile(t, dir, "hello.txt", "hello\n")
	svc := newService(t)
	// A path in the description is never taken: the reference is kept by
	// name and hash, with a warning.
	in := `{"name":"K","knowledge":[{"name":"q3.pdf","size":6,"path":` + jsonString(hello) + `,"sha256":"` + helloSHA + `"}]}`
	imp, err := svc.Import([]byte(in), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if k := imp.Assistant.Knowledge[0]; k.Name != "q3.pdf" || k.Path != "" || k.SHA256 != helloSHA || !strings.Contains(imp.Warnings[0], "does not read files a description names") {
		t.Fatalf("%+v %v", k, imp.Warnings)
	}
	// Attaching the file completes the reference with rehome's own copy.
	imp, err = svc.Import([]byte(in), ImportOptions{Knowledge: []string{hello}})
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Assistant.Knowledge) != 1 || imp.Assistant.Knowledge[0].Path != svc.Library().PathFor(helloSHA, "hello.txt") || imp.Assistant.Knowledge[0].Name != "q3.pdf" {
		t.Fatalf("%+v", imp.Assistant.Knowledge)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestImportValidates(t *testing.T) {
	_, err := newService(t).Import([]byte(`{"description":"no name"}`), ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "name is empty") {
		t.Fatalf("err = %v", err)
	}
}

// The Assistants API's list response (GET /v1/assistants): every assistant
// in it is imported on its own, and the report says per assistant what came
// along and what did not. The fixture has the documented list shape and
// fields; its items cover each tool type, tool_resources with remote
// files, a null name and a broken item.
func TestImportOpenAIList(t *testing.T) {
	data, err := os.ReadFile("testdata/openai_assistants_list.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseJSON(data); err == nil || !strings.Contains(err.Error(), "list of assistants") {
		t.Errorf("ParseJSON of a list: %v, want an error that names the list", err)
	}
	svc := newService(t)
	rep, err := svc.ImportJSON(data, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.List || len(rep.Items) != 4 || rep.Imported != 3 || rep.Failed != 1 {
		t.Fatalf("report: list=%v items=%d imported=%d failed=%d", rep.List, len(rep.Items), rep.Imported, rep.Failed)
	}
	stored, err := svc.List()
	if err != nil || len(stored) != 3 {
		t.Fatalf("stored %d assistants (%v), want 3", len(stored), err)
	}
	byID := map[string]ImportItem{}
	for _, it := range rep.Items {
		byID[it.SourceID] = it
	}
	tutor := byID["asst_abc123"]
	if !tutor.Imported || tutor.Name != "Coding Tutor" || tutor.Assistant == nil || tutor.Assistant.ID == "" {
		t.Errorf("Coding Tutor: %+v", tutor)
	}
	// Files on OpenAI's servers: the capabilities that use them stay, and
	// the files are recorded by id so the audit can ask for them.
	mine := byID["asst_abc456"]
	if !mine.Imported {
		t.Fatalf("My Assistant: %+v", mine)
	}
	if !slices.Equal(mine.Assistant.Capabilities, []Capability{CodeInterpreter, Knowledge}) {
		t.Errorf("My Assistant capabilities %v, want code_interpreter and knowledge", mine.Assistant.Capabilities)
	}
	wantRemote := []RemoteFile{{Tool: CodeInterpreter, Kind: "file", ID: "file-abc123"}, {Tool: Knowledge, Kind: "vector_store", ID: "vs_abc123"}}
	if !slices.Equal(mine.Assistant.RemoteFiles, wantRemote) {
		t.Errorf("remote files %+v, want %+v", mine.Assistant.RemoteFiles, wantRemote)
	}
	if w := strings.Join(mine.Warnings, "\n"); !strings.Contains(w, "vs_abc123") || !strings.Contains(w, "file-abc123") {
		t.Errorf("warnings do not name the remote files:\n%s", w)
	}
	// A null name gets a derived one, and says so.
	unnamed := byID["asst_abc789"]
	if !unnamed.Imported || unnamed.Name != "Untitled assistant (asst_abc789)" {
		t.Errorf("null name: %+v", unnamed)
	}
	if w := strings.Join(unnamed.Warnings, "\n"); !strings.Contains(w, "name: null") {
		t.Errorf("null name not reported:\n%s", w)
	}
	if len(unnamed.Assistant.Actions) != 1 || !strings.Contains(unnamed.Assistant.Actions[0].Schema, "get_current_weather") {
		t.Errorf("function tool not kept: %+v", unnamed.Assistant.Actions)
	}
	// A broken item is reported with its reason; the others still import.
	broken := byID["asst_abc000"]
	if broken.Imported || broken.Name != "Broken Export" || broken.Error != "instructions: expected a string, got number" {
		t.Errorf("broken item: %+v", broken)
	}
	// Knowledge files cannot be matched to one of several assistants.
	if _, err := svc.ImportJSON(data, ImportOptions{Knowledge: []string{writeFile(t, t.TempDir(), "a.txt", "hello\n")}}); err == nil {
		t.Error("a list with --knowledge was imported")
	}
}

func TestImportListPagesAndShapes(t *testing.T) {
	svc := newService(t)
	rep, err := svc.ImportJSON([]byte(`{"object":"list","data":[{"id":"asst_1","object":"assistant","name":"One","model":"gpt-4o","tools":[]}],"first_id":"asst_1","last_id":"asst_1","has_more":true}`), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Imported != 1 || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "after=asst_1") {
		t.Errorf("has_more: %+v", rep)
	}
	for _, bad := range []string{`{"object":"list","data":[]}`, `{"object":"list","data":{}}`, `{"object":"list"}`} {
		if _, err := svc.ImportJSON([]byte(bad), ImportOptions{}); err == nil {
			t.Errorf("%s: imported", bad)
		}
	}
	// A single object still imports as one item.
	one, err := svc.ImportJSON([]byte(`{"name":"Solo","instructions":"x"}`), ImportOptions{})
	if err != nil || one.List || one.Imported != 1 || one.Items[0].Name != "Solo" {
		t.Errorf("single: %+v %v", one, err)
	}
}

// file_search on with no files in the JSON keeps the knowledge capability
// (it was dropped before, and the audit then left retrieval out).
func TestFileSearchWithoutFilesKeepsKnowledge(t *testing.T) {
	svc := newService(t)
	imp, err := svc.Import([]byte(`{"object":"assistant","id":"asst_x","name":"Searcher","model":"gpt-4o","tools":[{"type":"file_search"}],"tool_resources":{"file_search":{"vector_store_ids":[]}}}`), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(imp.Assistant.Capabilities, Knowledge) || len(imp.Assistant.Knowledge) != 0 {
		t.Errorf("capabilities %v, knowledge %v", imp.Assistant.Capabilities, imp.Assistant.Knowledge)
	}
	if w := strings.Join(imp.Warnings, "\n"); !strings.Contains(w, "knowledge capability is kept") {
		t.Errorf("warnings:\n%s", w)
	}
	// And rehome's own "capabilities": ["knowledge"] is a switch too.
	p, err := ParseJSON([]byte(`{"name":"K","capabilities":["Knowledge"]}`))
	if err != nil || !slices.Equal(p.Assistant.Capabilities, []Capability{Knowledge}) {
		t.Errorf("capabilities [Knowledge]: %v %v", p.Assistant.Capabilities, err)
	}
}
