package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"rehome/backend/assistant"
	"rehome/backend/llm"
	"rehome/backend/store"
	"rehome/internal/testsupport/llmtest"
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

// has says whether a note event holds text.
func (e *events) has(text string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.ContainsFunc(e.got, func(ev AskEvent) bool { return ev.Type == "note" && strings.Contains(ev.Text, text) })
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

	// An assistant whose knowledge file the user uploaded: rehome keeps
	// its own copy, at /mnt/data under its name too, and the screen may
	// send it back with the conversation's files (a reopened conversation
	// shows them all).
	kdir := t.TempDir()
	guide := filepath.Join(dir, "guide.txt")
	os.WriteFile(guide, []byte("Targets are set each January.\n"), 0o644)
	as, err := a.CreateAssistant(assistant.Assistant{Name: "Sales", Knowledge: []assistant.KnowledgeFile{{Name: "guide.txt", Path: guide}}})
	if err != nil || !strings.HasPrefix(as.Knowledge[0].Path, filepath.Join(a.cfg.DataDir, assistant.KnowledgeDir)+"/") {
		t.Fatalf("knowledge not copied into the library: %v %+v", err, as.Knowledge)
	}
	conv3, err := a.Ask(AskRequest{ConversationID: conv.ID, AssistantID: as.ID, Files: llm.HostPaths(conv2.Files), Server: server, Question: "And now?"})
	if err != nil || len(conv3.Files) != 3 || conv3.Files[2].Path != "/mnt/data/guide.txt" {
		t.Fatalf("with knowledge: %v %+v", err, conv3.Files)
	}
	// A record from before the knowledge library naming a host file (an
	// import could choose it): not mounted, and the screen is told.
	secret := filepath.Join(kdir, "shadow")
	os.WriteFile(secret, []byte("root:TOPSECRET::::::\n"), 0o600)
	old := as
	old.ID = "01OLDRECORD"
	old.Knowledge = []assistant.KnowledgeFile{{Name: "notes.txt", Size: 21, SHA256: strings.Repeat("a", 64), Path: secret}}
	if err := a.core.Store().Put(store.Assistants, old.ID, old); err != nil {
		t.Fatal(err)
	}
	convOld, err := a.Ask(AskRequest{ConversationID: conv.ID, AssistantID: old.ID, Files: append(llm.HostPaths(conv3.Files), secret), Server: server, Question: "And the notes?"})
	if err != nil || slices.ContainsFunc(convOld.Files, func(f llm.FileInfo) bool { return f.HostPath == secret }) || !ev.has(`knowledge "notes.txt" is not mounted`) {
		t.Fatalf("an old record's host path: %v %+v", err, convOld.Files)
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
	// The cell's session starts after cell_start (a container: seconds on
	// a busy machine).
	for deadline := time.Now().Add(time.Minute); sid == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		sid = a.core.Asks().SessionID(id)
	}
	time.Sleep(time.Second) // the cell runs
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
