package llm

import (
	"path/filepath"
	"testing"

	"rehome/backend/store"
)

// TestServerPrefs: the kept servers and choices survive closing the
// database (a restart); URLs are kept as base URLs, once; a bad one is
// refused with nothing lost.
func TestServerPrefs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rehome.db")
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := LoadServerPrefs(st); err != nil || len(p.Servers) != 0 || p.PerAssistant == nil {
		t.Fatalf("empty: %+v %v", p, err)
	}
	if _, err := SaveServerPrefs(st, ServerPrefs{Servers: []string{"192.168.1.20:11434", "http://192.168.1.20:11434/v1/", " "}}); err != nil {
		t.Fatal(err)
	}
	if err := RememberChoice(st, "as1", ServerChoice{"http://192.168.1.20:11434/v1", "qwen2.5:7b"}); err != nil {
		t.Fatal(err)
	}
	if err := RememberChoice(st, "", ServerChoice{"http://127.0.0.1:8080/v1", "tiny"}); err != nil {
		t.Fatal(err)
	}
	if _, err := SaveServerPrefs(st, ServerPrefs{Servers: []string{"ftp://x"}}); err == nil {
		t.Fatal("ftp:// kept")
	}
	st.Close()
	st, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := LoadServerPrefs(st)
	if err != nil || len(p.Servers) != 1 || p.Servers[0] != "http://192.168.1.20:11434/v1" ||
		p.PerAssistant["as1"].Model != "qwen2.5:7b" || p.Last.Model != "tiny" {
		t.Fatalf("after reopening: %+v %v", p, err)
	}
}
