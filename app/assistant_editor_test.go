package app

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"rehome/backend/core"
	"rehome/backend/llm"
	"rehome/internal/testsupport/llmtest"
)

// multiWindow is a window whose dialog takes several files: it answers
// picks and notes the folder each dialog started in.
type multiWindow struct {
	fakeWindow
	picks  []string
	starts []string
}

func (m *multiWindow) OpenFilesDialog(_, dir string, _ []FileFilter) ([]string, error) {
	m.starts = append(m.starts, dir)
	return m.picks, nil
}

// The knowledge dialog takes several files, each then readable by
// KnowledgeAdd; it starts in Documents the first time (home when there is
// none) and in the folder last chosen from afterwards.
func TestPickKnowledgeFilesSeveralAndLastFolder(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	h := newTestApp(t)
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	docs := filepath.Join(home, "Documents")
	os.MkdirAll(docs, 0o700)
	src := filepath.Join(t.TempDir(), "reports")
	os.MkdirAll(src, 0o700)
	a1, a2 := filepath.Join(src, "a.md"), filepath.Join(src, "b.md")
	os.WriteFile(a1, []byte("# A"), 0o600)
	os.WriteFile(a2, []byte("# B"), 0o600)
	w := &multiWindow{picks: []string{a1, a2}}
	h.SetEmitter(w)
	got, err := h.PickKnowledgeFiles()
	if err != nil || len(got) != 2 {
		t.Fatalf("picked %v, %v", got, err)
	}
	for _, p := range got {
		if _, err := h.readable(p); err != nil {
			t.Errorf("%s picked but not readable: %v", p, err)
		}
	}
	w.picks = nil
	if got, err := h.PickKnowledgeFiles(); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("a cancelled dialog: %v %v", got, err)
	}
	if len(w.starts) != 2 || w.starts[0] != docs || w.starts[1] != src {
		t.Fatalf("the dialogs started in %v, want %s then %s", w.starts, docs, src)
	}
	// Kept across a restart.
	h.Close()
	h = New(Config{DataDir: h.cfg.DataDir})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	h.SetEmitter(w)
	h.PickKnowledgeFiles()
	if w.starts[2] != src {
		t.Fatalf("after a restart the dialog started in %s, want %s", w.starts[2], src)
	}
	os.RemoveAll(src)
	os.RemoveAll(docs)
	h.PickKnowledgeFiles()
	if w.starts[3] != home {
		t.Fatalf("with the folder gone and no Documents: %s, want %s", w.starts[3], home)
	}
}

// Stop in the preview: StopAsk("preview:ID") ends an answer that trickles
// without end; the text that came is kept in the transcript, each piece
// went out as a "preview:event", and a second preview with the same id
// while it answers is refused.
func TestPreviewStops(t *testing.T) {
	a := openApp(t)
	w := &fakeWindow{}
	a.SetEmitter(w)
	srv := llmtest.Hostile(t, llmtest.HostileTrickle, 20*time.Millisecond)
	req := core.PreviewRequest{ID: "p1", Instructions: "Be brief.", Server: srv.URL + "/v1", Model: llmtest.HostileModel, Question: "hello?"}
	done := make(chan core.Transcript, 1)
	go func() {
		tr, err := a.PreviewAssistant(req)
		if err != nil {
			t.Error(err)
		}
		done <- tr
	}()
	deadline := time.Now().Add(20 * time.Second)
	for a.StopAsk("preview:p1") != nil {
		if time.Now().After(deadline) {
			t.Fatal("the preview never began")
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case tr := <-done:
		if tr.Stopped != llm.StopCanceled {
			t.Fatalf("stopped %q: %s", tr.Stopped, tr.Error)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Stop did not end the preview")
	}
	if !slices.Contains(w.events, "preview:event") {
		t.Fatalf("no preview:event went out: %v", w.events)
	}
	if a.StopAsk("preview:p1") == nil {
		t.Fatal("the preview's stop stayed registered after it ended")
	}
}
