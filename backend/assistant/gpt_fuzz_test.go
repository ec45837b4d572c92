package assistant

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/store"
)

// FuzzImportGPT feeds JSON descriptions of GPTs to the import by shape
// (ChatGPT's gizmo records, the store's lists, JSON Lines, the Assistants
// API's objects and lists), seeded from the real records in testdata:
// nothing may panic; a file is refused in words (ErrInvalid) or previewed
// as assistants that pass Validate, no more than MaxListItems of them,
// with a report bounded by the file's size. Preview stores nothing, so
// one store serves every input.
func FuzzImportGPT(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/gpts/*")
	more, _ := filepath.Glob("testdata/openai_*.json")
	for _, p := range append(seeds, more...) {
		if strings.HasSuffix(p, ".md") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"resource":{"resource":{"gizmo":{"id":"g-1","display":{"name":"x"}}}}}`))
	f.Add([]byte("{\"gizmo\":{\"id\":\"g-1\",\"display\":{}}}\n[]\n{}"))
	st, err := store.Open(filepath.Join(f.TempDir(), store.FileName), store.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	svc := NewService(st, filepath.Join(f.TempDir(), KnowledgeDir))
	f.Fuzz(func(t *testing.T, data []byte) {
		if imp, err := ParseJSON(data); err != nil {
			refusedInWords(t, err)
		} else if imp.Warnings == nil {
			t.Fatal("a parse with nil warnings")
		}
		rep, err := svc.PreviewJSON(data)
		if err != nil {
			refusedInWords(t, err)
			return
		}
		if len(rep.Items) == 0 || len(rep.Items) > MaxListItems || rep.Imported+rep.Failed != len(rep.Items) {
			t.Fatalf("%d items, %d imported, %d failed", len(rep.Items), rep.Imported, rep.Failed)
		}
		words := 0
		for _, it := range rep.Items {
			words += len(it.Error) + len(it.Name)
			for _, w := range it.Warnings {
				words += len(w)
			}
			if it.Assistant == nil {
				if it.Error == "" {
					t.Fatalf("item %d: neither an assistant nor an error", it.Index)
				}
				continue
			}
			if err := it.Assistant.Validate(); err != nil {
				t.Fatalf("item %d previewed, but: %v", it.Index, err)
			}
		}
		if words > 64*len(data)+1<<20 {
			t.Fatalf("a %d-byte file's report says %d bytes", len(data), words)
		}
	})
}

func refusedInWords(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrInvalid) || strings.TrimSpace(strings.TrimPrefix(err.Error(), ErrInvalid.Error()+":")) == "" {
		t.Fatalf("refused, but not in words: %v", err)
	}
}
