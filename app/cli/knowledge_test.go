package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const kettleGuide = `# Kettle care

Keep the kettle dry.

## Descaling

Descale the kettle every four weeks with citric acid; hard water needs it every two weeks.

## Warranty

The warranty lasts two years from the date of purchase. Batteries are covered for six months.
`

// The knowledge faces of the CLI, then an answer from them with its
// citations through `rehome ask` against the recorded Ollama wire.
func TestKnowledgeCLI(t *testing.T) {
	home, src := t.TempDir(), t.TempDir()
	guide := filepath.Join(src, "guide.md")
	os.WriteFile(guide, []byte(kettleGuide), 0o644)
	notes := filepath.Join(src, "notes.txt")
	os.WriteFile(notes, []byte("The descaling tablets are in the drawer under the sink.\n"), 0o644)
	exe := filepath.Join(src, "setup.exe")
	os.WriteFile(exe, []byte("MZ\x90\x00"), 0o644)

	r := rehomeCLI(t, home, "assistants", "add", "--name", "Kettle Helper", "--json")
	var a struct{ ID string }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &a) != nil || a.ID == "" {
		t.Fatalf("assistants add: %+v", r)
	}
	wantUsageError(t, rehomeCLI(t, home, "knowledge", "add", "Kettle Helper"), "one or more files")

	// One bad file: its reason, the others indexed, exit 1.
	r = rehomeCLI(t, home, "knowledge", "add", "kettle helper", guide, notes, exe)
	if r.code != 1 || !strings.Contains(r.stderr, "guide.md: indexed, 2 chunks") || !strings.Contains(r.stderr, "setup.exe: not indexed: a kind of file rehome cannot index (.exe)") ||
		!strings.Contains(r.stderr, "1 of 3 files not indexed") {
		t.Fatalf("knowledge add: %+v", r)
	}
	// Again: nothing to do.
	if r = rehomeCLI(t, home, "knowledge", "add", a.ID, guide); r.code != 0 || !strings.Contains(r.stderr, "unchanged") {
		t.Fatalf("add again: %+v", r)
	}
	r = rehomeCLI(t, home, "knowledge", "list", a.ID, "--json")
	var files []struct{ Name, State, Reason string }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &files) != nil || len(files) != 3 || files[0].Name != "guide.md" || files[0].State != "indexed" || files[2].State != "failed" {
		t.Fatalf("list: %+v", r)
	}
	r = rehomeCLI(t, home, "knowledge", "search", a.ID, "--top", "2", "--json", "how long is the warranty")
	var hits []struct {
		File, Section, Text string
		Score               float64
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &hits) != nil || len(hits) == 0 || hits[0].File != "guide.md" ||
		hits[0].Section != "Kettle care › Warranty" || !strings.Contains(hits[0].Text, "two years") || hits[0].Score <= 0 {
		t.Fatalf("search: %+v", r)
	}
	if r = rehomeCLI(t, home, "knowledge", "search", a.ID, "warranty"); !strings.Contains(r.stdout, "[1] guide.md, Kettle care › Warranty") {
		t.Fatalf("search text: %+v", r)
	}

	needPodman(t)
	srv := recordedOllama(t, "knowledge-tools")
	r = rehomeCLI(t, home, "ask", "--assistant", a.ID, "--server", srv.URL+"/v1", "--json", "How long is the warranty?")
	if r.code != 0 {
		t.Fatalf("ask: %+v", r)
	}
	var tr struct {
		ConversationID string `json:"conversation_id"`
		Citations      []struct {
			N             int
			File, Section string
			Quote         string
		}
		Turns []struct {
			Tools []struct{ Name, Fed string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &tr); err != nil {
		t.Fatal(err)
	}
	// The search found one passage: the answer's [2] names none and
	// is no citation.
	if len(tr.Citations) != 1 || tr.Citations[0].N != 1 || tr.Citations[0].File != "guide.md" || tr.Citations[0].Section != "Kettle care › Warranty" ||
		!strings.Contains(tr.Citations[0].Quote, "two years") {
		t.Fatalf("citations %+v\n%s", tr.Citations, r.stdout)
	}
	if len(tr.Turns) == 0 || len(tr.Turns[0].Tools) != 1 || !strings.Contains(tr.Turns[0].Tools[0].Fed, "[1] guide.md, Kettle care › Warranty") {
		t.Fatalf("turns %+v", tr.Turns)
	}
	body := srv.Bodies()[0]
	if !strings.Contains(body, `"name":"file_search"`) || !strings.Contains(body, `"name":"python"`) || !strings.Contains(body, "guide.md, notes.txt") {
		t.Fatalf("the request did not offer file_search beside python: %.600s", body)
	}
	// The Markdown export keeps the sources.
	r = rehomeCLI(t, home, "conversations", "export", tr.ConversationID)
	if r.code != 0 || !strings.Contains(r.stdout, "- [1] guide.md, Kettle care › Warranty: “") {
		t.Fatalf("export: %+v", r)
	}

	if r = rehomeCLI(t, home, "knowledge", "rm", a.ID, "guide.md"); r.code != 0 {
		t.Fatalf("rm: %+v", r)
	}
	if r = rehomeCLI(t, home, "knowledge", "search", a.ID, "--json", "warranty"); r.code != 0 || strings.Contains(r.stdout, "guide.md") {
		t.Fatalf("after rm: %+v", r)
	}
	if r = rehomeCLI(t, home, "knowledge", "rm", a.ID, "guide.md"); r.code != 1 || !strings.Contains(r.stderr, "no such knowledge file") {
		t.Fatalf("rm twice: %+v", r)
	}
	// Deleting the assistant removes its index and the copies only it used.
	kdir := filepath.Join(home, "knowledge")
	if _, err := os.Stat(filepath.Join(kdir, "assistants", a.ID, "index.bleve")); err != nil {
		t.Fatalf("no index before the delete: %v", err)
	}
	if r = rehomeCLI(t, home, "assistants", "rm", a.ID); r.code != 0 {
		t.Fatalf("assistants rm: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(kdir, "assistants", a.ID)); !os.IsNotExist(err) {
		t.Errorf("the deleted assistant's knowledge is still there: %v", err)
	}
	entries, _ := os.ReadDir(kdir)
	for _, e := range entries {
		if len(e.Name()) == 64 {
			t.Errorf("a copy is left after the delete: %s", e.Name())
		}
	}
}

// Two files named guide.md from two folders: both kept and listed apart,
// both found; `knowledge rm` with a name that fits both says which and
// removes nothing, with the listed name or a sha256 prefix it removes
// that one.
func TestKnowledgeCLISameNames(t *testing.T) {
	home, src := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(src, "kettle"), 0o755)
	os.MkdirAll(filepath.Join(src, "toaster"), 0o755)
	one := filepath.Join(src, "kettle", "guide.md")
	os.WriteFile(one, []byte(kettleGuide), 0o644)
	two := filepath.Join(src, "toaster", "guide.md")
	os.WriteFile(two, []byte("# Toaster care\n\nThe toaster warranty lasts one year.\n"), 0o644)
	if r := rehomeCLI(t, home, "assistants", "add", "--name", "Kettle Helper"); r.code != 0 {
		t.Fatalf("assistants add: %+v", r)
	}
	r := rehomeCLI(t, home, "knowledge", "add", "Kettle Helper", one, two)
	if r.code != 0 || !strings.Contains(r.stderr, "guide.md: indexed as guide (2).md (another guide.md is in the knowledge already)") {
		t.Fatalf("add: %+v", r)
	}
	r = rehomeCLI(t, home, "knowledge", "list", "Kettle Helper", "--json")
	var files []struct{ Name, Original, SHA256, Source string }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &files) != nil || len(files) != 2 || files[0].Name != "guide (2).md" || files[1].Name != "guide.md" ||
		files[0].Original != "guide.md" || files[0].Source != two {
		t.Fatalf("list: %+v", r)
	}
	if r = rehomeCLI(t, home, "knowledge", "list", "Kettle Helper"); !strings.Contains(r.stdout, "guide (2).md  "+files[0].SHA256[:12]) || !strings.Contains(r.stdout, "added as guide.md from "+filepath.Join(src, "toaster")) {
		t.Fatalf("list text: %+v", r)
	}
	r = rehomeCLI(t, home, "knowledge", "search", "Kettle Helper", "--json", "warranty")
	if r.code != 0 || !strings.Contains(r.stdout, `"file": "guide.md"`) || !strings.Contains(r.stdout, `"file": "guide (2).md"`) {
		t.Fatalf("search: %+v", r)
	}
	r = rehomeCLI(t, home, "knowledge", "rm", "Kettle Helper", "guide")
	if r.code != 1 || !strings.Contains(r.stderr, `"guide" fits 2 files: guide (2).md (sha256 `+files[0].SHA256[:12]) || !strings.Contains(r.stderr, "give the name as listed or the start of its sha256") {
		t.Fatalf("ambiguous rm: %+v", r)
	}
	if r = rehomeCLI(t, home, "knowledge", "rm", "Kettle Helper", files[0].SHA256[:6]); r.code != 0 || !strings.Contains(r.stderr, "removed guide (2).md") {
		t.Fatalf("rm by sha prefix: %+v", r)
	}
	r = rehomeCLI(t, home, "knowledge", "search", "Kettle Helper", "--json", "warranty")
	if r.code != 0 || strings.Contains(r.stdout, "one year") || !strings.Contains(r.stdout, "two years") {
		t.Fatalf("search after rm: %+v", r)
	}
	if r = rehomeCLI(t, home, "knowledge", "rm", "Kettle Helper", "guide.md"); r.code != 0 {
		t.Fatalf("rm by name: %+v", r)
	}
	if r = rehomeCLI(t, home, "knowledge", "list", "Kettle Helper"); !strings.Contains(r.stdout, "No knowledge files") {
		t.Fatalf("list after: %+v", r)
	}
}
