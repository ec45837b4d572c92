package core

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/backend/llm"
	"rehome/internal/testsupport/llmtest"
)

// A ```python block an answer wrote instead of calling the tool runs when
// asked, in the conversation's session: the recorded model calls python
// (reading sales.csv into df), then answers with a block that uses df;
// the loop runs nothing of it; RunBlock runs it as the session's next
// cell (df still there); code the answer does not hold is refused.
func TestRunAnswerBlock(t *testing.T) {
	needPodmanCore(t)
	c := openCore(t, t.TempDir(), Options{})
	lim, err := c.Runs().Saved()
	if err != nil {
		t.Fatal(err)
	}
	lim.Timeout = 2 * time.Minute // a loaded machine takes long to import pandas
	if _, err := c.Runs().Save(lim); err != nil {
		t.Fatal(err)
	}
	rec := llmtest.Replay(t, filepath.Join("..", "llm", "testdata"), "tools-example-answer")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	a, err := c.Asks().Prepare(ctx, AskRequest{Server: rec.Base(), Model: "qwen2.5:7b", Question: "Which region had the most revenue?",
		Files: []string{filepath.Join("..", "llm", "testdata", "sales.csv")}})
	if err != nil {
		t.Fatal(err)
	}
	tr := a.Run(ctx, nil)
	if err := a.Keep(); err != nil {
		t.Fatal(err)
	}
	id := a.Conversation.ID
	t.Cleanup(func() { c.Asks().Close(context.Background(), id) })
	cells := tr.Cells()
	if tr.Stopped != llm.StopAnswered || len(cells) != 1 || !strings.Contains(tr.Answer, "```python") {
		t.Fatalf("the answer: %s %s %d cell(s) %q", tr.Stopped, tr.Error, len(cells), tr.Answer)
	}
	block := "print(df.groupby('region')['revenue'].sum())"
	run, err := c.Asks().RunBlock(ctx, BlockRunRequest{ConversationID: id, Exchange: 0, Code: "\n" + block + "\n"})
	if err != nil {
		t.Fatal(err)
	}
	if r := run.Result; r.ExitCode != 0 || r.SessionID != cells[0].Result.SessionID || r.Cell != 2 || !strings.Contains(r.Stdout, "South") {
		t.Fatalf("the block's run (the model's session %s): %+v", cells[0].Result.SessionID, r)
	}
	for _, bad := range []BlockRunRequest{
		{ConversationID: id, Exchange: 0, Code: "import os; print(os.listdir('/'))"},
		{ConversationID: id, Exchange: 1, Code: block},
		{ConversationID: id, Exchange: 0, Code: cells[0].Code}, // a cell that ran, not a block of the answer
	} {
		if _, err := c.Asks().RunBlock(ctx, bad); !errors.Is(err, ErrNotInAnswer) {
			t.Fatalf("%+v: %v", bad, err)
		}
	}
}

// PythonBlocks finds every closed python block, nested ones too, and no
// other language's.
func TestPythonBlocks(t *testing.T) {
	text := "Try:\n\n```python\nprint(1)\n```\n\n- a list\n\n  ```py\n  x = 2\n  ```\n\n```js\nconsole.log(3)\n```\n\nand more words."
	got := llm.PythonBlocks(text)
	if len(got) != 2 || got[0] != "print(1)" || got[1] != "x = 2" {
		t.Fatalf("%q", got)
	}
}
