package core

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/assistant"
	"rehome/backend/llm"
)

// The canvas tools as the loop calls them, then the user's side on the
// kept conversation: edit, diff, restore, export; an assistant without
// canvas gets no tools.
func TestCanvasToolsAndVersions(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	conv := llm.NewConversation()
	tools := c.Canvas().Tools(conv)
	if len(tools) != 3 || tools[0].Name != "create_textdoc" || !strings.Contains(tools[0].Prompt, "The canvas is empty") {
		t.Fatalf("tools %+v", tools)
	}
	call := func(i int, args string) llm.ToolOutput {
		return c.Canvas().Tools(conv)[i].Call(context.Background(), llm.ToolInput{Arguments: args})
	}
	if o := call(1, `{"updates":[{"pattern":".*","replacement":"x"}]}`); o.Error == "" || !strings.Contains(o.Text, "create_textdoc first") {
		t.Fatalf("update before create: %+v", o)
	}
	if o := call(0, `{"name":"analysis","type":"code/python","content":"import pandas as pd\nprint(1)\n"}`); o.Error != "" || !strings.HasPrefix(o.Ref, "canvas:") {
		t.Fatalf("create: %+v", o)
	}
	if o := call(1, `{"updates":[{"pattern":"print\\((\\d)\\)","replacement":"print(\\1 + 1)"}]}`); o.Error != "" || conv.Canvas[0].Content != "import pandas as pd\nprint(1 + 1)\n" {
		t.Fatalf("update: %+v %q", o, conv.Canvas[0].Content)
	}
	if o := call(1, `{"updates":[{"pattern":"nothing here","replacement":"x"}]}`); o.Error == "" || !strings.Contains(o.Text, "nothing was changed") {
		t.Fatalf("no match: %+v", o)
	}
	if o := call(2, `{"comments":[{"pattern":"import pandas","comment":"Import only what you use."}]}`); o.Error != "" || len(conv.Canvas[0].Comments) != 1 {
		t.Fatalf("comment: %+v", o)
	}
	if p := c.Canvas().Tools(conv)[0].Prompt; !strings.Contains(p, "version 2") || !strings.Contains(p, "print(1 + 1)") {
		t.Fatalf("the prompt does not show the textdoc: %s", p)
	}
	if err := llm.SaveConversation(c.Store(), conv); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Canvas().Edit(conv.ID, "", "import pandas as pd\nprint(3)\n"); err != nil {
		t.Fatal(err)
	}
	diff, err := c.Canvas().Diff(conv.ID, "", 2, 3)
	if err != nil || !strings.Contains(diff, "-print(1 + 1)") || !strings.Contains(diff, "+print(3)") {
		t.Fatalf("diff %q %v", diff, err)
	}
	d, err := c.Canvas().Restore(conv.ID, conv.Canvas[0].ID, 1)
	if err != nil || d.Content != "import pandas as pd\nprint(1)\n" {
		t.Fatalf("restore %v", err)
	}
	kept, _ := c.Canvas().Docs(conv.ID)
	if len(kept) != 1 || len(kept[0].Versions) != 4 || kept[0].Versions[2].By != "user" || kept[0].Versions[3].By != "restore" {
		t.Fatalf("kept %+v", kept[0].Versions)
	}
	// `rehome conversations show --json` and the bridge's view carry the
	// canvas with its versions.
	v, err := c.Conversations().View(conv.ID)
	if err != nil || len(v.Canvas) != 1 || len(v.Canvas[0].Versions) != 4 || v.Canvas[0].Versions[3].By != "restore" {
		t.Fatalf("the conversation's view has no canvas: %+v %v", v, err)
	}
	if raw, _ := json.Marshal(v); !strings.Contains(string(raw), `"canvas":[{`) {
		t.Fatalf("the view's JSON has no canvas: %s", raw)
	}
	dir := t.TempDir()
	files, err := c.Canvas().Export(conv.ID, dir, "")
	if err != nil || len(files) != 1 || filepath.Base(files[0]) != "analysis.py" {
		t.Fatalf("export %v %v", files, err)
	}
	if data, _ := os.ReadFile(files[0]); string(data) != "import pandas as pd\nprint(1)\n" {
		t.Fatalf("exported %q", data)
	}
	a, _ := c.Assistants().Create(assistant.Assistant{Name: "Plain"})
	other := llm.NewConversation()
	other.AssistantID = a.ID
	if got := c.Canvas().Tools(other); len(got) != 0 {
		t.Fatal("an assistant without canvas got the tools")
	}
}
