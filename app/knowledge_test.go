package app

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"rehome/backend/assistant"
)

type knowledgeEvents struct {
	mu  sync.Mutex
	got []KnowledgeProgress
}

func (e *knowledgeEvents) Emit(name string, payload any) {
	if p, ok := payload.(KnowledgeProgress); ok && name == "knowledge:progress" {
		e.mu.Lock()
		e.got = append(e.got, p)
		e.mu.Unlock()
	}
}

// The window's knowledge methods call the one core service: a dropped
// (uploaded) file indexes with progress events, is listed, found and
// removed; a path the user never gave is refused before anything reads it.
func TestKnowledgeMethods(t *testing.T) {
	a := openApp(t)
	defer a.Close()
	ev := &knowledgeEvents{}
	a.SetEmitter(ev)
	as, err := a.CreateAssistant(assistant.Assistant{Name: "Kettle Helper"})
	if err != nil {
		t.Fatal(err)
	}
	up := filepath.Join(a.cfg.DataDir, UploadsDir, "k1", "guide.md")
	os.MkdirAll(filepath.Dir(up), 0o700)
	os.WriteFile(up, []byte("# Guide\n\nThis guide covers the care of the K100 kettle.\n\n## Warranty\n\nThe warranty lasts two years from the date of purchase.\n"), 0o600)
	res, err := a.KnowledgeAdd(as.ID, []string{up})
	if err != nil || len(res) != 1 || res[0].State != "indexed" {
		t.Fatalf("add: %+v %v", res, err)
	}
	ev.mu.Lock()
	n := len(ev.got)
	last := KnowledgeProgress{}
	if n > 0 {
		last = ev.got[n-1]
	}
	ev.mu.Unlock()
	if n < 3 || last.Stage != "done" || last.AssistantID != as.ID || last.Result == nil {
		t.Errorf("progress events %d, last %+v", n, last)
	}
	files, err := a.KnowledgeList(as.ID)
	if err != nil || len(files) != 1 || files[0].Chunks == 0 {
		t.Fatalf("list: %+v %v", files, err)
	}
	hits, err := a.KnowledgeSearch(as.ID, "warranty", 0)
	if err != nil || len(hits) == 0 || hits[0].Section != "Guide › Warranty" {
		t.Fatalf("search: %+v %v", hits, err)
	}
	got, _ := a.GetAssistant(as.ID)
	if len(got.Knowledge) != 1 || got.Knowledge[0].Name != "guide.md" || got.Knowledge[0].SHA256 != files[0].SHA256 {
		t.Errorf("the assistant's record lists %+v", got.Knowledge)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("not given"), 0o600)
	if _, err := a.KnowledgeAdd(as.ID, []string{outside}); err == nil || !strings.Contains(err.Error(), "not a file you gave rehome") {
		t.Errorf("a path never given: %v", err)
	}
	if _, err := a.KnowledgeRemove(as.ID, "guide.md"); err != nil {
		t.Fatal(err)
	}
	if files, _ := a.KnowledgeList(as.ID); len(files) != 0 {
		t.Errorf("after remove: %+v", files)
	}
	if err := a.DeleteAssistant(as.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(a.cfg.DataDir, "knowledge", "assistants", as.ID)); !os.IsNotExist(err) {
		t.Errorf("the deleted assistant's knowledge is still there: %v", err)
	}
}

type cancelAt struct {
	a     *App
	id    string
	index int
}

func (c *cancelAt) Emit(name string, payload any) {
	if p, ok := payload.(KnowledgeProgress); ok && p.Index == c.index && p.Stage == "copying" {
		c.a.KnowledgeCancel(c.id)
	}
}

// A browser's uploads: the library's copy is the only one kept (the
// upload goes once added), the same name uploaded again is the same file
// (a page cannot say where it kept it), and Stop (KnowledgeCancel) ends
// an add between files with what was done kept and no error.
func TestKnowledgeUploadsAndCancel(t *testing.T) {
	a := openApp(t)
	defer a.Close()
	as, err := a.CreateAssistant(assistant.Assistant{Name: "Kettle Helper"})
	if err != nil {
		t.Fatal(err)
	}
	uploadAs := func(id, name, text string) string {
		p := filepath.Join(a.cfg.DataDir, UploadsDir, id, name)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(text), 0o600)
		return p
	}
	one := uploadAs("u1", "guide.md", "# Guide\n\nThe warranty lasts two years.\n")
	if res, err := a.KnowledgeAdd(as.ID, []string{one}); err != nil || res[0].State != "indexed" {
		t.Fatalf("add: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Dir(one)); !os.IsNotExist(err) {
		t.Errorf("the upload is kept beside the library's copy: %v", err)
	}
	two := uploadAs("u2", "guide.md", "# Guide\n\nThe warranty lasts three years.\n")
	if res, err := a.KnowledgeAdd(as.ID, []string{two}); err != nil || res[0].Action != "reindexed" || res[0].Name != "guide.md" {
		t.Fatalf("the same name uploaded again: %+v %v", res, err)
	}
	a.SetEmitter(&cancelAt{a: a.App, id: as.ID, index: 2})
	files := []string{uploadAs("u3", "a.md", "# A\n\nalpha\n"), uploadAs("u4", "b.md", "# B\n\nbeta\n"), uploadAs("u5", "c.md", "# C\n\ngamma\n")}
	res, err := a.KnowledgeAdd(as.ID, files)
	if err != nil || len(res) != 1 || res[0].Name != "a.md" {
		t.Fatalf("stopped at the second file: %+v %v", res, err)
	}
	list, _ := a.KnowledgeList(as.ID)
	if len(list) != 2 || list[0].Name != "a.md" || list[1].Name != "guide.md" {
		t.Fatalf("after stop: %+v", list)
	}
	if err := a.KnowledgeCancel(as.ID); err != nil {
		t.Errorf("cancel with no add: %v", err)
	}
	r, err := a.KnowledgeRanking(as.ID)
	if err != nil || r.Mode != "keywords" || !strings.Contains(r.Words, "keywords alone") {
		t.Errorf("ranking: %+v %v", r, err)
	}
}
