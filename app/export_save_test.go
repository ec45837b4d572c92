package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/llm"
)

// TestSaveConversation: Export writes where the user chose in the window's
// Save dialog, in the format chosen (Markdown, notebook, JSON), and says
// where; a path not chosen there, an unknown format, or a browser (no
// dialog: it downloads RenderConversation's text) writes nothing.
func TestSaveConversation(t *testing.T) {
	a := newTestApp(t)
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	c := llm.NewConversation()
	c.Add(&llm.Transcript{Question: "Which region sold most?", Answer: "**South**, 230.0."})
	if err := llm.SaveConversation(a.core.Store(), c); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// A browser: no file written, the text to download.
	if _, err := a.SaveConversation(c.ID, "md", filepath.Join(dir, "x.md")); err == nil {
		t.Fatal("a browser wrote a file")
	}
	r, err := a.RenderConversation(c.ID, "json")
	var back llm.Conversation
	if err != nil || r.Name != "Which region sold most-.json" && !strings.HasSuffix(r.Name, ".json") || json.Unmarshal([]byte(r.Text), &back) != nil || back.ID != c.ID {
		t.Fatalf("render json: %+v %v", r.Name, err)
	}
	if _, err := a.RenderConversation(c.ID, "pdf"); err == nil || !strings.Contains(err.Error(), "not an export format") {
		t.Fatalf("pdf: %v", err)
	}

	w := &fakeWindow{}
	a.SetEmitter(w)
	for _, f := range []struct{ format, want string }{{"md", "**South**, 230.0."}, {"ipynb", `"nbformat"`}, {"json", `"exchanges"`}} {
		w.save = filepath.Join(dir, "out."+f.format)
		if _, err := a.SaveConversation(c.ID, f.format, w.save); err == nil || !strings.Contains(err.Error(), "Save dialog") {
			t.Fatalf("%s before the dialog: %v", f.format, err)
		}
		p, err := a.ChooseSavePath("Export the conversation", "x."+f.format)
		if err != nil || p != w.save {
			t.Fatal(p, err)
		}
		got, err := a.SaveConversation(c.ID, f.format, p)
		if err != nil || got.Path != w.save {
			t.Fatalf("%s: %+v %v", f.format, got, err)
		}
		data, err := os.ReadFile(w.save)
		if err != nil || !strings.Contains(string(data), f.want) {
			t.Fatalf("%s wrote %q (%v)", f.format, data, err)
		}
	}
}
