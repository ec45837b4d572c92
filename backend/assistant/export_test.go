package assistant

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// modelfileCommand is one instruction as Ollama's Modelfile reference
// defines the format: `INSTRUCTION arguments`, instructions case
// insensitive, `#` comments, values bare to the end of the line or in "…"
// or """…""" quotes (which may span lines and end at a line that ends with
// the closing quotes).
type modelfileCommand struct{ Name, Arg string }

var modelfileInstructions = []string{"from", "parameter", "template", "system", "adapter", "license", "message", "requires"}

func readModelfile(t *testing.T, text string) []modelfileCommand {
	t.Helper()
	var out []modelfileCommand
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimLeft(line, " \t"), "#") {
			continue
		}
		name, rest, ok := strings.Cut(strings.TrimLeft(line, " \t"), " ")
		if !ok || !slices.Contains(modelfileInstructions, strings.ToLower(name)) {
			t.Fatalf("line %d: not an instruction: %q", i+1, line)
		}
		name = strings.ToLower(name)
		if name == "parameter" || name == "message" {
			var key string
			key, rest, _ = strings.Cut(rest, " ")
			name += " " + key
		}
		switch {
		case strings.HasPrefix(rest, `"""`):
			// Ends at the first line end where the value so far ends in """.
			val := rest
			for {
				trimmed := strings.TrimRight(val, " \t\r")
				if len(trimmed) >= 6 && strings.HasSuffix(trimmed, `"""`) {
					val = trimmed[3 : len(trimmed)-3]
					break
				}
				i++
				if i >= len(lines) {
					t.Fatalf("unterminated \"\"\" value of %s", name)
				}
				val += "\n" + lines[i]
			}
			out = append(out, modelfileCommand{name, val})
		case strings.HasPrefix(rest, `"`):
			if !strings.HasSuffix(rest, `"`) || len(rest) < 2 {
				t.Fatalf("line %d: unterminated quote", i+1)
			}
			out = append(out, modelfileCommand{name, rest[1 : len(rest)-1]})
		default:
			out = append(out, modelfileCommand{name, strings.TrimSpace(rest)})
		}
	}
	return out
}

func commandArgs(cmds []modelfileCommand, name string) []string {
	var out []string
	for _, c := range cmds {
		if c.Name == name {
			out = append(out, c.Arg)
		}
	}
	return out
}

func sample() Assistant {
	return Assistant{
		Schema: 1, ID: "01jabcdefghjkmnpqrstvwxyz0", Name: "Quarterly Numbers",
		Description:  "Reads the sales exports.",
		Instructions: "You are a careful analyst.\n\nAlways show the formula.\n  Indented line keeps its spaces.\n",
		Starters:     []string{"What were Q3 sales?", "Plot revenue by region"},
		Knowledge:    []KnowledgeFile{{Name: "q3.csv", Size: 120, SHA256: helloSHA, Path: "/data/q3.csv"}},
		Capabilities: []Capability{CodeInterpreter, Vision},
		Actions:      []Action{{Schema: `{"openapi":"3.1.0","info":{"title":"FX rates"},"servers":[{"url":"https://fx.example.com"}]}`, Auth: "api_key"}},
		Notes:        "moved in spring",
		Created:      time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
		Updated:      time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC),
	}
}

func TestModelfile(t *testing.T) {
	text, warnings, err := Modelfile(sample(), ExportOptions{Model: "qwen2.5:7b", Parameters: []Parameter{{"temperature", "0.2"}, {"stop", "User:"}}})
	if err != nil {
		t.Fatal(err)
	}
	cmds := readModelfile(t, text)
	if got := commandArgs(cmds, "from"); !slices.Equal(got, []string{"qwen2.5:7b"}) {
		t.Fatalf("FROM %v\n%s", got, text)
	}
	if got := commandArgs(cmds, "system"); len(got) != 1 || got[0] != sample().Instructions {
		t.Fatalf("SYSTEM %q\nwant %q", got, sample().Instructions)
	}
	if got := commandArgs(cmds, "parameter num_ctx"); !slices.Equal(got, []string{"8192"}) {
		t.Errorf("num_ctx %v", got)
	}
	if got := commandArgs(cmds, "parameter temperature"); !slices.Equal(got, []string{"0.2"}) {
		t.Errorf("temperature %v", got)
	}
	msgs := commandArgs(cmds, "message assistant")
	if len(msgs) != 1 || !strings.Contains(msgs[0], "- What were Q3 sales?\n- Plot revenue by region") {
		t.Fatalf("MESSAGE %q", msgs)
	}
	for _, want := range []string{"# Build it with: ollama create quarterly-numbers -f", "q3.csv  120 bytes  sha256 " + helloSHA, "action 1: auth api_key, FX rates", "cannot switch on (see `rehome audit`): code_interpreter, vision"} {
		if !strings.Contains(text, want) {
			t.Errorf("Modelfile lacks %q:\n%s", want, text)
		}
	}
	if len(warnings) != 0 {
		t.Errorf("warnings %v", warnings)
	}
}

func TestModelfileTextSurvivesTheFormat(t *testing.T) {
	cases := []struct {
		name, instructions, want, warning string
	}{
		{"quotes at line ends", "Say \"hi\"\nthen \"bye\"\"", "Say \"hi\"\nthen \"bye\"\"", ""},
		{"tabs and CRLF", "a\tb\r\nc", "a\tb\r\nc", ""},
		{"triple quotes", "Use \"\"\"docstrings\"\"\"\nlike \"\"\"", "Use '''docstrings'''\nlike '''", `""" written as '''`},
		{"no-break and zero-width spaces", "a\u00a0b\u200bc", "a bc", "2 invisible or unusual space character(s)"},
		{"leading and trailing blank lines", "\n\nx\n\n", "\n\nx\n\n", ""},
		{"starts with a quote", "\"Quoted\" start", "\"Quoted\" start", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := Assistant{Name: "T", Instructions: c.instructions}
			text, warnings, err := Modelfile(a, ExportOptions{Model: "llama3.2:3b"})
			if err != nil {
				t.Fatal(err)
			}
			got := commandArgs(readModelfile(t, text), "system")
			if len(got) != 1 || got[0] != c.want {
				t.Fatalf("SYSTEM %q, want %q\n%s", got, c.want, text)
			}
			if c.warning != "" && !strings.Contains(strings.Join(warnings, "\n"), c.warning) {
				t.Fatalf("warnings %v lack %q", warnings, c.warning)
			}
			if c.warning == "" && len(warnings) > 0 {
				t.Fatalf("unexpected warnings %v", warnings)
			}
		})
	}
}

func TestModelfileOptions(t *testing.T) {
	a := sample()
	if _, _, err := Modelfile(a, ExportOptions{}); !errors.Is(err, ErrNoModel) {
		t.Fatalf("no model: %v", err)
	}
	if _, _, err := Modelfile(a, ExportOptions{Model: "qwen 7b"}); err == nil {
		t.Fatal("a model name with a space was accepted")
	}
	if _, _, err := Modelfile(a, ExportOptions{Model: "m", Parameters: []Parameter{{"temprature", "1"}}}); err == nil || !strings.Contains(err.Error(), `parameter "temprature": Ollama does not know it`) {
		t.Fatalf("bad parameter: %v", err)
	}
	text, _, err := Modelfile(a, ExportOptions{Model: "/models/q.gguf", NoGreeting: true, Parameters: []Parameter{{"num_ctx", "4096"}}})
	if err != nil {
		t.Fatal(err)
	}
	cmds := readModelfile(t, text)
	if len(commandArgs(cmds, "message assistant")) != 0 || !slices.Equal(commandArgs(cmds, "parameter num_ctx"), []string{"4096"}) || commandArgs(cmds, "from")[0] != "/models/q.gguf" {
		t.Fatalf("%s", text)
	}
	long := sample()
	long.Starters = []string{strings.Repeat("a very long starter ", 60)}
	text, warnings, _ := Modelfile(long, ExportOptions{Model: "m"})
	if len(commandArgs(readModelfile(t, text), "message assistant")) != 0 || !strings.Contains(strings.Join(warnings, ""), "too long for a greeting") {
		t.Fatalf("long starters: %v\n%s", warnings, text)
	}
	big := sample()
	big.Instructions = strings.Repeat("word ", 30000) // ~37,500 tokens
	text, _, _ = Modelfile(big, ExportOptions{Model: "m"})
	if got := commandArgs(readModelfile(t, text), "parameter num_ctx"); !slices.Equal(got, []string{"32768"}) {
		t.Fatalf("num_ctx for long instructions %v", got)
	}
}

// openWebUIModelForm lists the fields of Open WebUI's ModelForm and
// ModelModel (backend/open_webui/models/models.py): an export may carry
// only these at the top level.
var openWebUIModelFields = []string{"id", "user_id", "base_model_id", "name", "params", "meta", "access_control", "price", "is_active", "updated_at", "created_at"}

func TestOpenWebUIExportHasTheDocumentedShape(t *testing.T) {
	data, warnings, err := OpenWebUI(sample(), ExportOptions{Model: "qwen2.5:7b", Parameters: []Parameter{{"temperature", "0.2"}}})
	if err != nil {
		t.Fatal(err)
	}
	// Open WebUI's Import Models reads a JSON array and creates each
	// element that has an id and a name.
	var models []map[string]any
	if err := json.Unmarshal(data, &models); err != nil || len(models) != 1 {
		t.Fatalf("not a one-element array: %v\n%s", err, data)
	}
	m := models[0]
	for k := range m {
		if !slices.Contains(openWebUIModelFields, k) {
			t.Errorf("top-level key %q is not a ModelForm field", k)
		}
	}
	mustString := func(v any, what string) string {
		s, ok := v.(string)
		if !ok {
			t.Fatalf("%s: %T, want a string", what, v)
		}
		return s
	}
	if id := mustString(m["id"], "id"); id != "quarterly-numbers" {
		t.Errorf("id %q: Open WebUI's editor would derive quarterly-numbers", id)
	}
	mustString(m["name"], "name")
	if mustString(m["base_model_id"], "base_model_id") != "qwen2.5:7b" {
		t.Error("base_model_id")
	}
	if m["is_active"] != true {
		t.Error("is_active")
	}
	// The workspace list reads access_control.write.group_ids.
	ac := m["access_control"].(map[string]any)
	for _, side := range []string{"read", "write"} {
		s := ac[side].(map[string]any)
		if _, ok := s["group_ids"].([]any); !ok {
			t.Errorf("access_control.%s.group_ids missing", side)
		}
	}
	params := m["params"].(map[string]any)
	if mustString(params["system"], "params.system") != sample().Instructions || params["temperature"] != 0.2 || params["num_ctx"] != float64(8192) {
		t.Errorf("params %v", params)
	}
	meta := m["meta"].(map[string]any)
	mustString(meta["profile_image_url"], "meta.profile_image_url")
	if mustString(meta["description"], "meta.description") != "Reads the sales exports." {
		t.Error("description")
	}
	caps := meta["capabilities"].(map[string]any)
	for k, v := range caps {
		if _, ok := v.(bool); !ok {
			t.Errorf("capability %s is %T", k, v)
		}
	}
	if caps["code_interpreter"] != true || caps["vision"] != true || caps["web_search"] != false || caps["image_generation"] != false {
		t.Errorf("capabilities %v", caps)
	}
	// Prompt suggestions pass the checks of Open WebUI's suggestions
	// import: content a string, title a string or an array of strings.
	sp := meta["suggestion_prompts"].([]any)
	if len(sp) != 2 {
		t.Fatalf("suggestions %v", sp)
	}
	for i, s := range sp {
		s := s.(map[string]any)
		if mustString(s["content"], fmt.Sprintf("suggestion %d content", i)) != sample().Starters[i] {
			t.Errorf("suggestion %d content", i)
		}
		title := s["title"].([]any)
		if len(title) != 2 {
			t.Errorf("suggestion %d title %v", i, title)
		}
		for _, part := range title {
			mustString(part, "title part")
		}
	}
	rehome := meta["rehome"].(map[string]any)
	if len(rehome["knowledge"].([]any)) != 1 || len(rehome["actions"].([]any)) != 1 {
		t.Errorf("meta.rehome %v", rehome)
	}
	if len(warnings) != 2 {
		t.Errorf("warnings %v", warnings)
	}
	if m["created_at"] != float64(sample().Created.Unix()) {
		t.Errorf("created_at %v", m["created_at"])
	}
}

func TestOpenWebUIIDs(t *testing.T) {
	for name, want := range map[string]string{
		"Quarterly  Numbers (v2)": "quarterly-numbers-v2",
		"Ünïcode Helper":          "ncode-helper",
		"日本語":                     "rehome-abc",
	} {
		if got := openWebUIID(Assistant{ID: "ABC", Name: name}); got != want {
			t.Errorf("%q: %q, want %q", name, got, want)
		}
	}
	if _, _, err := OpenWebUI(sample(), ExportOptions{}); err == nil {
		t.Fatal("export without a base model accepted: Open WebUI would treat it as a base model override")
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{"Quarterly Numbers": "quarterly-numbers", "  --Trip  planner!! ": "trip-planner", "日本語": "assistant"} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
