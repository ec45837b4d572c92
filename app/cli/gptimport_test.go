package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func gptFixture(name string) string {
	return filepath.Join("..", "..", "backend", "assistant", "testdata", "gpts", name)
}

// `rehome assistants import` takes ChatGPT's own GPT JSON as the store
// serves it (real records, testdata/gpts/SOURCES.md), through the same
// core service as the window: a store list imports each GPT, a second
// import of a GPT updates it, a record that is not a GPT is said so.
func TestAssistantsImportGPTsCLI(t *testing.T) {
	home := t.TempDir()
	r := rehomeCLI(t, home, "assistants", "import", gptFixture("store_list_writing.json"))
	if r.code != 0 {
		t.Fatalf("store list: %+v", r)
	}
	for _, want := range []string{"a list of 3 assistant(s): 3 imported, 0 not imported", `"Writing Assistant" (GPT g-Z7GlWKlJx;`, "canvas", "note: gizmo.instructions: not in this record"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = rehomeCLI(t, home, "assistants", "import", gptFixture("store_list_writing.json"))
	if r.code != 0 || !strings.Contains(r.stdout, "(3 updated: imported before from the same GPT)") || strings.Count(r.stdout, "  updated ") != 3 {
		t.Fatalf("second import: %+v", r)
	}
	stored := decode[[]struct {
		Name    string `json:"name"`
		GizmoID string `json:"gizmo_id"`
	}](t, rehomeCLI(t, home, "assistants", "list", "--json"))
	if len(stored) != 3 || stored[0].GizmoID == "" {
		t.Fatalf("stored %+v", stored)
	}

	r = rehomeCLI(t, home, "assistants", "import", gptFixture("song_maker_files.json"))
	if r.code != 0 || !strings.Contains(r.stdout, "9 files to bring") || !strings.Contains(r.stderr, "image_generation is listed 2 times (dalle, image_gen): kept once") {
		t.Fatalf("song maker: %+v", r)
	}

	bad := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(bad, []byte(`{"title": "not a gpt", "count": 2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r = rehomeCLI(t, home, "assistants", "import", bad)
	if r.code != 1 || !strings.Contains(r.stderr, "this JSON is not a GPT") || !strings.Contains(r.stderr, "rehome reads ChatGPT's GPT records") {
		t.Fatalf("not a GPT: %+v", r)
	}
}

// An imported action keeps its auth and waits only for its key: `actions
// list` says so, a call says so in words, `actions key` gives it.
func TestImportedActionWaitsForItsKeyCLI(t *testing.T) {
	home := t.TempDir()
	r := rehomeCLI(t, home, "assistants", "import", gptFixture("canva_bearer.json"), "--json")
	imp := decode[struct {
		Assistant struct {
			ID      string `json:"id"`
			Actions []struct {
				Name string `json:"name"`
			} `json:"actions"`
		} `json:"assistant"`
	}](t, r)
	id, name := imp.Assistant.ID, imp.Assistant.Actions[0].Name
	r = rehomeCLI(t, home, "actions", "list", id)
	if r.code != 0 || !strings.Contains(r.stdout, "auth bearer, waiting for its API key") || !strings.Contains(r.stdout, "rehome actions key "+id+" "+name+" --key-stdin") {
		t.Fatalf("list: %+v", r)
	}
	// A call before the key says so in words, and is not made.
	acts := decode[[]struct {
		Operations []struct {
			ID string `json:"id"`
		} `json:"operations"`
	}](t, rehomeCLI(t, home, "actions", "list", id, "--json"))
	r = rehomeCLI(t, home, "actions", "test", id, acts[0].Operations[0].ID, "--args", "{}", "--yes")
	if r.code == 0 || !strings.Contains(r.stderr, "waiting for its API key") || !strings.Contains(r.stderr, "rehome actions key ASSISTANT ACTION --key-stdin") {
		t.Fatalf("a call waiting for its key: %+v", r)
	}
	r = rehomeCLIIn(t, home, strings.NewReader("canva-test-key\n"), "actions", "key", id, name, "--key-stdin")
	if r.code != 0 || !strings.Contains(r.stdout, name+": ready (auth bearer)") {
		t.Fatalf("key: %+v", r)
	}
	r = rehomeCLI(t, home, "actions", "list", id)
	if strings.Contains(r.stdout, "waiting") || strings.Contains(r.stdout, "canva-test-key") {
		t.Fatalf("after the key: %+v", r)
	}
	// A second import keeps the action, and so its key.
	rehomeCLI(t, home, "assistants", "import", gptFixture("canva_bearer.json"))
	r = rehomeCLI(t, home, "actions", "list", id)
	if r.code != 0 || strings.Contains(r.stdout, "waiting") {
		t.Fatalf("after a re-import: %+v", r)
	}
}

// `actions add` with no --auth takes the auth the schema declares (a
// real live schema with an http bearer scheme) and adds the action
// waiting for its key; an OAuth one waits for its client.
func TestActionsAddTakesDeclaredAuthCLI(t *testing.T) {
	home := t.TempDir()
	imp := decode[struct {
		Assistant struct {
			ID string `json:"id"`
		} `json:"assistant"`
	}](t, rehomeCLIIn(t, home, strings.NewReader(`{"name":"Repls"}`), "assistants", "import", "-", "--json"))
	id := imp.Assistant.ID
	schema := filepath.Join("..", "..", "backend", "actions", "testdata", "live", "replit_create_repl.json")
	r := rehomeCLI(t, home, "actions", "add", id, schema)
	if r.code != 0 || !strings.Contains(r.stdout, "auth bearer") || !strings.Contains(r.stdout, "waiting for its API key") || !strings.Contains(r.stderr, `"Create Repl" is not a valid tool name`) {
		t.Fatalf("add replit: %+v", r)
	}
	oauth := filepath.Join("..", "..", "backend", "actions", "testdata", "live", "ruvnet_google-oauth.json")
	r = rehomeCLI(t, home, "actions", "add", id, oauth)
	if r.code != 0 || !strings.Contains(r.stdout, "auth oauth") || !strings.Contains(r.stdout, "waiting for its OAuth client") || !strings.Contains(r.stdout, "--client-id ID --client-secret-stdin") {
		t.Fatalf("add google oauth: %+v", r)
	}
}
