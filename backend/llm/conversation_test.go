package llm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/store"
)

func TestConversationKeptAndExported(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	png := filepath.Join(t.TempDir(), "plot-001.png")
	os.WriteFile(png, []byte("\x89PNG\r\n\x1a\nfake"), 0o600)
	c := NewConversation()
	c.Model, c.Server = "qwen2.5:7b", "http://127.0.0.1:11434/v1"
	c.Add(&Transcript{Question: "Which region had the most revenue?", Answer: salesAnswer, Stopped: StopAnswered,
		Turns: []Turn{{Text: "Let me check.", Reasoning: "sum it", Cells: []Cell{{Code: salesCode, Via: "tool_call",
			Result: CellResult{Stdout: "South    230.0\n", Files: []OutFile{{Name: "plot-001.png", Kind: "plot", Path: png}}}}}},
			{Text: salesAnswer}}})
	if err := SaveConversation(st, c); err != nil {
		t.Fatal(err)
	}
	got, err := GetConversation(st, c.ID)
	if err != nil || got.Title != "Which region had the most revenue?" || len(got.Exchanges) != 1 || got.Exchanges[0].Turns[0].Cells[0].Code != salesCode {
		t.Fatalf("got %+v %v", got, err)
	}
	list, err := ListConversations(st, 0)
	if err != nil || len(list) != 1 {
		t.Fatalf("list %d %v", len(list), err)
	}
	if h := got.History(); len(h) != 2 || h[1].Content != salesAnswer {
		t.Errorf("history %+v", h)
	}
	md := got.Markdown()
	for _, want := range []string{"# Which region", "```python\nimport pandas", "South    230.0", "![plot-001.png](" + png + ")", "<details><summary>Thinking</summary>", salesAnswer} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, salesAnswer) != 1 {
		t.Errorf("answer repeated:\n%s", md)
	}
	nbData, err := got.Notebook()
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		NBFormat int `json:"nbformat"`
		Cells    []struct {
			Type    string           `json:"cell_type"`
			Source  []string         `json:"source"`
			Outputs []map[string]any `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(nbData, &nb); err != nil || nb.NBFormat != 4 {
		t.Fatalf("notebook: %v", err)
	}
	var code int
	for _, ce := range nb.Cells {
		if ce.Type == "code" {
			code++
			if len(ce.Outputs) != 2 || ce.Outputs[1]["output_type"] != "display_data" || ce.Source[0] != "import pandas as pd\n" {
				t.Errorf("code cell %+v", ce)
			}
		}
	}
	if code != 1 {
		t.Errorf("%d code cells", code)
	}
}

// The kept conversation and both exports keep an answer's citations.
func TestConversationKeepsCitations(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := NewConversation()
	cites := []Citation{{N: 1, File: "manual.pdf", Page: 4, Quote: "The warranty lasts two years."}, {N: 2, File: "guide.docx", Section: "Care › Batteries", Quote: "Six months."}}
	c.Add(&Transcript{Question: "Warranty?", Answer: "Two years [1], batteries six months [2].", Stopped: StopAnswered, Citations: cites,
		Turns: []Turn{{Text: "Two years [1], batteries six months [2].", Citations: cites}}})
	if err := SaveConversation(st, c); err != nil {
		t.Fatal(err)
	}
	got, err := GetConversation(st, c.ID)
	if err != nil || len(got.Exchanges[0].Citations) != 2 || got.Exchanges[0].Citations[1].Section != "Care › Batteries" {
		t.Fatalf("kept %+v %v", got.Exchanges[0].Citations, err)
	}
	md := got.Markdown()
	for _, want := range []string{"- [1] manual.pdf, page 4: “The warranty lasts two years.”", "- [2] guide.docx, Care › Batteries: “Six months.”"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	nb, err := got.Notebook()
	if err != nil || !strings.Contains(string(nb), "[1] manual.pdf, page 4") {
		t.Errorf("notebook lacks the sources: %v\n%s", err, nb)
	}
}
