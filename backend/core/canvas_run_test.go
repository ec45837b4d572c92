package core

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/backend/canvas"
	"rehome/backend/llm"
	"rehome/backend/store"
	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// A code canvas runs in the conversation's sandbox session: llama.cpp's
// llama-server serving the tiny model that reads sales.csv into df (a
// real Podman session, the file at /mnt/data); then the canvas's Python
// runs as the session's next cell and sees df, the model's variable; an
// edit that uses the canvas's own variable runs as the cell after it; a
// document textdoc is refused in words, and so is a run while the
// conversation answers.
func TestCanvasRunsInSession(t *testing.T) {
	needPodmanCore(t)
	script := tinymodel.DefaultScript("sales.csv", "region", "revenue")
	srv := llamatest.Start(t, script)
	c := openCore(t, t.TempDir(), Options{})
	lim, err := c.Runs().Saved()
	if err != nil {
		t.Fatal(err)
	}
	lim.Timeout = 2 * time.Minute // a loaded machine takes long to import pandas
	if _, err := c.Runs().Save(lim); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	a, err := c.Asks().Prepare(ctx, AskRequest{Server: srv.URL, Model: llamatest.Alias, Question: "Summarise sales.csv.",
		Files: []string{filepath.Join("..", "llm", "testdata", "sales.csv")}})
	if err != nil {
		t.Fatal(err)
	}
	tr := a.Run(ctx, nil)
	if err := a.Keep(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Asks().Close(context.Background(), a.Conversation.ID) })
	cells := tr.Cells()
	if tr.Stopped != llm.StopAnswered || len(cells) != 1 || cells[0].Result.SessionID == "" || cells[0].Result.ExitCode != 0 {
		t.Fatalf("the model's cell: %s %s %+v", tr.Stopped, tr.Error, cells)
	}
	sid, id := cells[0].Result.SessionID, a.Conversation.ID

	// The model's canvas (as create_textdoc writes it), code that reads
	// the model's df and defines a variable of its own.
	conv, err := llm.GetConversation(c.Store(), id)
	if err != nil {
		t.Fatal(err)
	}
	code, _ := canvas.New(store.NewID(), "check", "code/python", "print(len(df), 'rows of', ', '.join(df.columns))\ntotal = round(df['revenue'].sum(), 1)", "model")
	doc, _ := canvas.New(store.NewID(), "notes", "document", "Revenue by region.", "model")
	conv.Canvas = append(conv.Canvas, code, doc)
	if err := llm.SaveConversation(c.Store(), conv); err != nil {
		t.Fatal(err)
	}

	run, err := c.Canvas().Run(ctx, CanvasRunRequest{ConversationID: id, DocID: code.ID})
	if err != nil {
		t.Fatal(err)
	}
	if r := run.Result; r.ExitCode != 0 || r.SessionID != sid || r.Cell != 2 || strings.TrimSpace(r.Stdout) != "6 rows of region, month, revenue" || run.Version != 1 || run.Name != "check" {
		t.Fatalf("the canvas's run (the model's session %s): %+v", sid, run)
	}
	if _, err := c.Canvas().Edit(id, code.ID, "print('total', total)"); err != nil {
		t.Fatal(err)
	}
	run, err = c.Canvas().Run(ctx, CanvasRunRequest{ConversationID: id, DocID: code.ID})
	if err != nil {
		t.Fatal(err)
	}
	if r := run.Result; r.ExitCode != 0 || r.SessionID != sid || r.Cell != 3 || !strings.HasPrefix(r.Stdout, "total ") || run.Version != 2 {
		t.Fatalf("the edited canvas's run: %+v", run)
	}
	if got := c.Asks().SessionID(id); got != sid {
		t.Fatalf("the conversation's session is %q, not %q", got, sid)
	}

	// The current textdoc is the document: refused, and it says what to do.
	if _, err := c.Canvas().Run(ctx, CanvasRunRequest{ConversationID: id}); !errors.Is(err, ErrCanvasNotPython) || !strings.Contains(err.Error(), `"notes" is document`) || !strings.Contains(err.Error(), "rehome canvas export "+id) {
		t.Fatalf("a document run: %v", err)
	}
	c.askSvc.mu.Lock()
	c.askSvc.answering = map[string]bool{id: true}
	c.askSvc.mu.Unlock()
	if _, err := c.Canvas().Run(ctx, CanvasRunRequest{ConversationID: id, DocID: code.ID}); err == nil || !strings.Contains(err.Error(), "once the answer is done") {
		t.Fatalf("a run while answering: %v", err)
	}
}
