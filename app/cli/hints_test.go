package cli

import (
	"strings"
	"testing"

	"rehome/app"
	"rehome/backend/llm"
)

// TestDomainErrorsInEachFacesWords: the backend names the missing fact;
// the CLI adds its flag and the window its field, each never the other's.
func TestDomainErrorsInEachFacesWords(t *testing.T) {
	home := t.TempDir()
	empty := t.TempDir() // a machine whose RAM cannot be read

	r := rehomeCLI(t, home, "fit", "--root", empty, "--vram", "24GiB", "--model", "llama-3.1-8b-instruct")
	wantUsageError(t, r, "RAM is unknown: rehome could not read it: give it with --ram, such as --ram 64GiB")

	id := addAssistant(t, home, "--name", "Helper")["id"].(string)
	r = rehomeCLI(t, home, "assistants", "export", id, "--format", "modelfile")
	if r.code != 1 || !strings.Contains(r.stderr, "choose the local model it runs on, such as qwen2.5:7b: give it with --model") {
		t.Fatalf("export without a model: %+v", r)
	}

	r = rehomeCLI(t, home, "audit", "checklist", id)
	if r.code != 1 || !strings.Contains(r.stderr, "has not been audited yet: run `rehome audit --assistant "+id+"` first") {
		t.Fatalf("checklist before an audit: %+v", r)
	}
	if err := cliError(&llm.NoServerError{}); !strings.HasSuffix(err.Error(), "Or name one with --server URL") {
		t.Fatalf("no model server: %v", err)
	}

	// The window, over the same data folder, says the same facts in its
	// own words.
	h := app.New(app.Config{DataDir: home})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	_, err := h.ExportAssistant(id, "modelfile", "")
	if err == nil || !strings.Contains(err.Error(), "such as qwen2.5:7b: type it in “Local model”") || strings.Contains(err.Error(), "--") {
		t.Fatalf("the window's export without a model: %v", err)
	}
	_, err = h.Checklist(id)
	if err == nil || !strings.Contains(err.Error(), "has not been audited yet: audit it on the Audit screen first") || strings.Contains(err.Error(), "--") {
		t.Fatalf("the window's checklist before an audit: %v", err)
	}
}
