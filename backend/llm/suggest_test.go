package llm

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"rehome/backend/audit"
	"rehome/backend/store"
)

// The model to tell the user to pull: the assistant's default, else what
// its latest audit chose for it, else what the latest audit chose.
func TestSuggestedModel(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if m := SuggestedModel(st, "A", ""); m != "" {
		t.Errorf("no audit: %q", m)
	}
	older := audit.Record{Schema: audit.SchemaVersion, ID: store.NewID(), TextModel: &audit.Model{Tag: "gemma3:12b"},
		Assistants: []audit.AssistantAudit{{Subject: audit.Subject{AssistantID: "A"}, TextModel: &audit.Model{Tag: "gemma3:12b"}}}}
	time.Sleep(5 * time.Millisecond)
	newer := audit.Record{Schema: audit.SchemaVersion, ID: store.NewID(), TextModel: &audit.Model{Tag: "qwen2.5:14b"},
		Assistants: []audit.AssistantAudit{{Subject: audit.Subject{AssistantID: "B"}, TextModel: &audit.Model{Tag: "qwen2.5:14b"}}}}
	for _, r := range []audit.Record{older, newer} {
		if err := st.Put(store.Audits, r.ID, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ id, def, want string }{
		{"A", "", "gemma3:12b"},
		{"B", "", "qwen2.5:14b"},
		{"", "", "qwen2.5:14b"},
		{"C", "", "qwen2.5:14b"},
		{"A", "phi4-mini", "phi4-mini"},
	} {
		if m := SuggestedModel(st, tc.id, tc.def); m != tc.want {
			t.Errorf("assistant %q default %q: %q, want %q", tc.id, tc.def, m, tc.want)
		}
	}
}

// A file that is not a table (a PDF among the knowledge files) is named
// with its size and kind, without made-up columns.
func TestDescribeNonTable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "guide.pdf")
	if err := os.WriteFile(p, []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := DescribeFile(p)
	if err != nil || fi.Format != "pdf" || len(fi.Columns) != 0 || fi.Rows != 0 || fi.Note != "" {
		t.Fatalf("%v %+v", err, fi)
	}
	if d := fi.Describe(); d != "/mnt/data/guide.pdf (23 bytes, PDF)" {
		t.Errorf("describe: %q", d)
	}
}
