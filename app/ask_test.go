package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rehome/backend/assistant"
	"rehome/backend/llm"
	"rehome/backend/llm/llmtest"
)

// testdata holds the recorded model-server transcripts.
var testdata = filepath.Join("..", "backend", "llm", "testdata")

type events struct {
	mu  sync.Mutex
	got []AskEvent
}

func (e *events) Emit(name string, payload any) {
	if ev, ok := payload.(AskEvent); ok && name == "ask:event" {
		e.mu.Lock()
		e.got = append(e.got, ev)
		e.mu.Unlock()
	}
}

func (e *events) count(typ string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.got {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

// text joins the Text of the events of one type, and says whether the
// first came before the first event of type before.
func (e *events) text(typ, before string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	first, other := -1, -1
	for i, ev := range e.got {
		if ev.Type == typ {
			b.WriteString(ev.Text)
			if first < 0 {
				first = i
			}
		}
		if ev.Type == before && other < 0 {
			other = i
		}
	}
	return b.String(), first >= 0 && (other < 0 || first < other)
}

// The window's Ask: a conversation keeps one session across its
// questions (two files at /mnt/data, state kept), Stop interrupts the
// running cell and the question ends as stopped, and the session is gone
// when the app closes.
func TestAskSessionThroughApp(t *testing.T) {
	needPodman(t)
	a := openApp(t)
	ev := &events{}
	a.SetEmitter(ev)
	lim, err := a.RunLimits()
	if err != nil {
		t.Fatal(err)
	}
	lim.Timeout = 2 * time.Minute // a loaded machine takes long to import pandas
	if _, err := a.SetRunLimits(lim); err != nil {
		t.Fatal(err)
	}
	// As uploaded through the browser: the app reads only files the user gave it.
	dir := filepath.Join(a.cfg.DataDir, UploadsDir, "test")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range []string{"sales.csv", "targets.csv"} {
		data, err := os.ReadFile(filepath.Join("..", "backend", "llm", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, f)
		os.WriteFile(p, data, 0o644)
		files = append(files, p)
	}
	server := llmtest.Replay(t, testdata, "session-state", "slow-cell", "drop").Base()

	conv, err := a.Ask(AskRequest{Files: files, Server: server, Question: "Which region beat its target by the most?"})
	if err != nil {
		t.Fatal(err)
	}
	tr := conv.Exchanges[0]
	cells := tr.Cells()
	if tr.Answer != "East beat its target by the most: 21.0." || len(cells) != 2 || !strings.Contains(cells[1].Result.Stdout, "East     21.0") {
		t.Fatalf("first question: %s %q %+v", tr.Stopped, tr.Answer, cells)
	}
	// What the cells printed reached the screen as "output" events while
	// they ran, the first before the first cell was done.
	if out, early := ev.text("output", "cell_done"); !strings.Contains(out, "East     21.0") || !early {
		t.Fatalf("live output (before the cell ended: %v): %q", early, out)
	}
	sid := cells[0].Result.SessionID
	if sid == "" || cells[1].Result.SessionID != sid {
		t.Fatalf("sessions %q %q", sid, cells[1].Result.SessionID)
	}

	// The next question of the conversation: the same session; Stop while
	// its cell sleeps.
	go func() {
		// Stop once the third cell (this question's) is running.
		for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if ev.count("cell_start") == 3 {
				time.Sleep(time.Second)
				a.StopAsk(conv.ID)
				return
			}
		}
	}()
	start := time.Now()
	conv2, err := a.Ask(AskRequest{ConversationID: conv.ID, Server: server, Question: "Wait a while."})
	if err != nil {
		t.Fatal(err)
	}
	tr = conv2.Exchanges[1]
	cells = tr.Cells()
	if tr.Stopped != llm.StopCanceled || len(cells) != 1 || !cells[0].Result.Interrupted || cells[0].Result.SessionID != sid || cells[0].Result.Cell != 3 {
		t.Fatalf("stopped question (%s): %s %+v", time.Since(start), tr.Stopped, cells)
	}
	if len(conv2.Files) != 2 {
		t.Errorf("the conversation's files: %+v", conv2.Files)
	}

	// An assistant whose knowledge file is outside the uploads: it is at
	// /mnt/data too, and the screen may send it back with the
	// conversation's files (a reopened conversation shows them all).
	kdir := t.TempDir()
	guide := filepath.Join(kdir, "guide.txt")
	os.WriteFile(guide, []byte("Targets are set each January.\n"), 0o644)
	as, err := a.CreateAssistant(assistant.Assistant{Name: "Sales", Knowledge: []assistant.KnowledgeFile{{Name: "guide.txt", Path: guide}}})
	if err != nil {
		t.Fatal(err)
	}
	conv3, err := a.Ask(AskRequest{ConversationID: conv.ID, AssistantID: as.ID, Files: llm.HostPaths(conv2.Files), Server: server, Question: "And now?"})
	if err != nil || len(conv3.Files) != 3 || conv3.Files[2].Path != "/mnt/data/guide.txt" {
		t.Fatalf("with knowledge: %v %+v", err, conv3.Files)
	}
	if _, err := a.Ask(AskRequest{ConversationID: conv.ID, Files: llm.HostPaths(conv3.Files), Server: server, Question: "Again?"}); err != nil {
		t.Fatalf("the conversation's own files were refused: %v", err)
	}
	if _, err := a.Ask(AskRequest{ConversationID: conv.ID, Files: []string{filepath.Join(kdir, "other.csv")}, Server: server, Question: "?"}); err == nil || !strings.Contains(err.Error(), "not a file you gave rehome") {
		t.Fatalf("a file the user did not give: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command("podman", "ps", "-a", "--filter", "label=io.rehome.session="+sid, "--format", "{{.ID}}").Output()
	if strings.TrimSpace(string(out)) != "" {
		t.Fatalf("the conversation's session is left after the app closed: %s", out)
	}
}

// Deleting a conversation while it answers stops the question, ends its
// session and does not keep the conversation.
func TestAskDeletedWhileAnswering(t *testing.T) {
	needPodman(t)
	a := openApp(t)
	defer a.Close()
	ev := &events{}
	a.SetEmitter(ev)
	server := llmtest.Replay(t, testdata, "slow-cell").Base()
	type result struct {
		conv llm.Conversation
		err  error
	}
	done := make(chan result, 1)
	go func() {
		c, err := a.Ask(AskRequest{Server: server, Question: "Wait a while."})
		done <- result{c, err}
	}()
	t1 := time.Now()
	defer func() { t.Logf("test body %s", time.Since(t1).Round(time.Millisecond)) }()
	var id, sid string
	for deadline := time.Now().Add(3 * time.Minute); id == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		ev.mu.Lock()
		for _, e := range ev.got {
			if e.Type == "cell_start" {
				id = e.ConversationID
			}
		}
		ev.mu.Unlock()
	}
	time.Sleep(time.Second)
	a.asks.mu.Lock()
	if s := a.asks.execs[id]; s != nil {
		sid = s.x.Info().ID
	}
	a.asks.mu.Unlock()
	if id == "" || sid == "" {
		t.Fatalf("the cell did not start (conversation %q, session %q)", id, sid)
	}
	t0 := time.Now()
	if err := a.DeleteConversation(id); err != nil {
		t.Fatal(err)
	}
	t.Logf("deleted in %s; cell_start seen after %s", time.Since(t0).Round(time.Millisecond), t0.Sub(t1).Round(time.Millisecond))
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the question went on after its conversation was deleted")
	}
	t.Logf("the question ended %s after the delete", time.Since(t0).Round(time.Millisecond))
	if r.err == nil || !strings.Contains(r.err.Error(), "deleted") {
		t.Fatalf("ask: %v", r.err)
	}
	if list, _ := a.ListConversations(10); len(list) != 0 {
		t.Fatalf("the deleted conversation was kept: %+v", list)
	}
	out, _ := exec.Command("podman", "ps", "-a", "--filter", "label=io.rehome.session="+sid, "--format", "{{.ID}}").Output()
	if strings.TrimSpace(string(out)) != "" {
		t.Fatalf("the deleted conversation's session is left: %s", out)
	}
}
