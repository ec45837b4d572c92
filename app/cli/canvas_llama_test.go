package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// rehome ask with a real model that writes a canvas: llama.cpp's
// llama-server serving the tiny model taught to call create_textdoc, then
// update_textdoc. The conversation keeps the textdoc with its two
// versions; the user edits it (a third), diffs, restores version 1, and
// exports it as Markdown and as a notebook.
func TestAskCanvasRealModelCLI(t *testing.T) {
	needPodman(t)
	script := tinymodel.CanvasScript()
	model := llamatest.Start(t, script)
	home := t.TempDir()
	r := rehomeCLI(t, home, "ask", "--server", model.URL, "--model", llamatest.Alias, "--json", "Plan my trip in a canvas, then make it Lyon.")
	var out struct {
		ConversationID string `json:"conversation_id"`
		Answer         string
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.Answer != strings.Join(script.Answer, "") {
		t.Fatalf("ask: %+v", r)
	}
	id := out.ConversationID
	show := func() []struct {
		Name, Type, Content string
		Versions            []struct {
			N  int
			By string
		}
	} {
		t.Helper()
		r := rehomeCLI(t, home, "canvas", "show", id, "--json")
		var docs []struct {
			Name, Type, Content string
			Versions            []struct {
				N  int
				By string
			}
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &docs) != nil {
			t.Fatalf("show: %+v", r)
		}
		return docs
	}
	docs := show()
	if len(docs) != 1 || docs[0].Name != "plan" || docs[0].Content != "Day 1: Lyon" || len(docs[0].Versions) != 2 || docs[0].Versions[1].By != "model" {
		t.Fatalf("the model's canvas: %+v", docs)
	}
	if r := rehomeCLI(t, home, "canvas", "run", id); r.code != 1 || !strings.Contains(r.stderr, `only a code/python textdoc runs in the sandbox session: "plan" is document`) {
		t.Fatalf("a document run: %+v", r)
	}
	if r := rehomeCLIIn(t, home, strings.NewReader("Day 1: Lyon\nDay 2: Annecy\n"), "canvas", "edit", id); r.code != 0 {
		t.Fatalf("edit: %+v", r)
	}
	if r := rehomeCLI(t, home, "canvas", "diff", id, "2", "3"); r.code != 0 || !strings.Contains(r.stdout, "+Day 2: Annecy") {
		t.Fatalf("diff: %+v", r)
	}
	if r := rehomeCLI(t, home, "canvas", "restore", id, "1"); r.code != 0 {
		t.Fatalf("restore: %+v", r)
	}
	if docs = show(); docs[0].Content != "Day 1: Paris" || len(docs[0].Versions) != 4 {
		t.Fatalf("restored: %+v", docs)
	}
	dir := t.TempDir()
	for _, f := range []string{"", "ipynb"} {
		args := []string{"canvas", "export", id, "--out", dir}
		if f != "" {
			args = append(args, "--format", f)
		}
		if r := rehomeCLI(t, home, args...); r.code != 0 {
			t.Fatalf("export %s: %+v", f, r)
		}
	}
	if md, _ := os.ReadFile(filepath.Join(dir, "plan.md")); string(md) != "Day 1: Paris" {
		t.Fatalf("plan.md %q", md)
	}
	if nb, _ := os.ReadFile(filepath.Join(dir, "plan.ipynb")); !strings.Contains(string(nb), `"nbformat": 4`) {
		t.Fatalf("plan.ipynb %s", nb)
	}
}

// rehome canvas run with a real model's code canvas: llama.cpp's
// llama-server serving the tiny model taught to create a code/python
// textdoc (print(6 * 7)); `rehome canvas run` runs it as a cell of the
// conversation's session in the real Podman sandbox: 42 on stdout, the
// cell and session on stderr, the same as JSON.
func TestCanvasRunRealModelCLI(t *testing.T) {
	needPodman(t)
	script := tinymodel.CodeCanvasScript()
	model := llamatest.Start(t, script)
	home := t.TempDir()
	r := rehomeCLI(t, home, "ask", "--server", model.URL, "--model", llamatest.Alias, "--json", "Write Python that prints the answer in a canvas.")
	var out struct {
		ConversationID string `json:"conversation_id"`
		Answer         string
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.Answer != strings.Join(script.Answer, "") {
		t.Fatalf("ask: %+v", r)
	}
	r = rehomeCLI(t, home, "canvas", "run", out.ConversationID)
	if r.code != 0 || r.stdout != "42\n" || !strings.Contains(r.stderr, "rehome: answer (version 1) ran as cell 1 of session ") || !strings.Contains(r.stderr, ": exit 0") {
		t.Fatalf("run: %+v", r)
	}
	r = rehomeCLI(t, home, "canvas", "run", out.ConversationID, "--json")
	var run struct {
		Doc, Name string
		Version   int
		Result    struct {
			ExitCode  int    `json:"exit_code"`
			Stdout    string `json:"stdout"`
			SessionID string `json:"session_id"`
			Cell      int    `json:"cell"`
		}
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &run) != nil || run.Name != "answer" || run.Result.Stdout != "42\n" || run.Result.SessionID == "" || run.Result.Cell != 1 {
		t.Fatalf("run --json: %+v", r)
	}
}
