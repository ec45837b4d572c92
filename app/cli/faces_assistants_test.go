package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/app"
	"rehome/backend/core"
)

// The import rule "a bundle brings its own knowledge" is the core's: both
// faces refuse knowledge beside a bundle in its words, and import the
// bundle alone to the same assistant.
func TestBundleImportSameFromBothFaces(t *testing.T) {
	home := t.TempDir()
	id := addAssistant(t, home, "--name", "Bundled", "--instructions", "Answer in French.")["id"].(string)
	dir := filepath.Join(home, app.UploadsDir) // where the bridge reads what the user gave
	os.MkdirAll(dir, 0o700)
	bundle := filepath.Join(dir, "bundled.tar.gz")
	if r := rehomeCLI(t, home, "assistants", "export", id, "--format", "bundle", "-o", bundle); r.code != 0 {
		t.Fatalf("export: %+v", r)
	}
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("notes\n"), 0o600)

	r := rehomeCLI(t, home, "assistants", "import", bundle, "--knowledge", notes)
	if r.code != 2 || !strings.Contains(r.stderr, core.ErrBundleKnowledge.Error()) {
		t.Fatalf("the terminal: bundle with --knowledge: %+v", r)
	}
	r = rehomeCLI(t, home, "assistants", "import", bundle, "--json")
	if r.code != 0 || !strings.Contains(r.stdout, "Answer in French.") {
		t.Fatalf("the terminal: bundle: %+v", r)
	}

	a := app.New(app.Config{DataDir: home})
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.ImportAssistant(app.AssistantImport{Bundle: bundle, Knowledge: []string{notes}}); err == nil || err.Error() != core.ErrBundleKnowledge.Error() {
		t.Fatalf("the window: bundle with knowledge: %v", err)
	}
	imp, err := a.ImportAssistant(app.AssistantImport{Bundle: bundle})
	if err != nil || imp.Assistant.Name != "Bundled" || imp.Assistant.Instructions != "Answer in French." {
		t.Fatalf("the window: bundle: %+v %v", imp, err)
	}
}
