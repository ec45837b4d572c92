package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rehome/internal/testsupport/llmtest"
)

// recordedOllama serves a recorded scenario of backend/llm/testdata as
// Ollama would (see llmtest.Replay).
func recordedOllama(t *testing.T, scenario string) *llmtest.Recorded {
	return llmtest.Replay(t, filepath.Join("..", "..", "backend", "llm", "testdata"), scenario)
}

func needPodman(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("podman"); err != nil {
		if os.Getenv("REHOME_REQUIRE_PODMAN") == "1" {
			t.Fatalf("real-Podman test cannot run: %v", err)
		}
		t.Skipf("no podman here; set REHOME_REQUIRE_PODMAN=1 to make this a failure")
	}
}

func TestAskCLI(t *testing.T) {
	home := t.TempDir()
	srv := recordedOllama(t, "ollama-tools")
	csv, _ := filepath.Abs(filepath.Join("..", "..", "backend", "llm", "testdata", "sales.csv"))

	// llm status against the named server: Ollama, its models, tool calling from /api/show.
	r := rehomeCLI(t, home, "llm", "status", "--server", srv.URL, "--json")
	if r.code != 0 {
		t.Fatalf("llm status: %+v", r)
	}
	var servers []struct {
		Kind     string
		Loopback bool
		Models   []struct{ ID, Tools string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &servers); err != nil || len(servers) != 1 || servers[0].Kind != "ollama" ||
		!servers[0].Loopback || len(servers[0].Models) != 2 || servers[0].Models[0].Tools != "yes" || servers[0].Models[1].Tools != "no" {
		t.Fatalf("llm status: %v %s", err, r.stdout)
	}
	r = rehomeCLI(t, home, "llm", "status", "--server", srv.URL)
	if !strings.Contains(r.stdout, "qwen2.5:7b") || !strings.Contains(r.stdout, "calls tools") || !strings.Contains(r.stdout, "no tool calling") {
		t.Fatalf("llm status text: %s", r.stdout)
	}

	wantUsageError(t, rehomeCLI(t, home, "ask", "--server", srv.URL), "question")
	wantUsageError(t, rehomeCLI(t, home, "ask", "--mode", "magic", "q"), "--mode")
	wantUsageError(t, rehomeCLI(t, home, "ask", "--max-steps", "0", "q"), "--max-steps")
	r = rehomeCLI(t, home, "ask", "--server", "http://127.0.0.1:1/v1", "q")
	if r.code != 1 || !strings.Contains(r.stderr, "no OpenAI-compatible model server answered") {
		t.Fatalf("dead server: %+v", r)
	}

	needPodman(t)
	// The question, flags after it, the answer as JSON.
	// (--timeout: a loaded machine takes long to import pandas.)
	r = rehomeCLI(t, home, "ask", "--server", srv.URL+"/v1", "--timeout", "2m", "--file", csv, "Which region had the most revenue?", "--json")
	if r.code != 0 {
		t.Fatalf("ask: %+v", r)
	}
	var tr struct {
		ConversationID string `json:"conversation_id"`
		Answer         string
		Model          string
		Stopped        string
		Cells          []struct {
			Code   string
			Via    string
			Result struct {
				ExitCode int `json:"exit_code"`
				Stdout   string
				Files    []struct{ Name, Kind, Path string }
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &tr); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, r.stdout)
	}
	if tr.Stopped != "answered" || !strings.HasPrefix(tr.Answer, "South had the most revenue: 230.0.") || tr.Model != "qwen2.5:7b" || len(tr.Cells) != 1 {
		t.Fatalf("transcript %+v", tr)
	}
	c := tr.Cells[0]
	if c.Via != "tool_call" || c.Result.ExitCode != 0 || !strings.Contains(c.Result.Stdout, "South    230.0") || len(c.Result.Files) != 1 {
		t.Fatalf("cell %+v", c)
	}
	png, err := os.ReadFile(c.Result.Files[0].Path)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) || !strings.HasPrefix(c.Result.Files[0].Path, home) {
		t.Fatalf("plot %s: %v", c.Result.Files[0].Path, err)
	}

	// Kept, listed, exported.
	r = rehomeCLI(t, home, "conversations", "list")
	if !strings.Contains(r.stdout, tr.ConversationID) || !strings.Contains(r.stdout, "Which region had the most revenue?") {
		t.Fatalf("list: %+v", r)
	}
	r = rehomeCLI(t, home, "conversations", "export", tr.ConversationID)
	if !strings.Contains(r.stdout, "```python\nimport pandas") || !strings.Contains(r.stdout, "![plot-001.png](") {
		t.Fatalf("markdown: %s", r.stdout)
	}
	nb := filepath.Join(t.TempDir(), "c.ipynb")
	r = rehomeCLI(t, home, "conversations", "export", tr.ConversationID, "--format", "ipynb", "--out", nb)
	data, err := os.ReadFile(nb)
	if r.code != 0 || err != nil || !bytes.Contains(data, []byte(`"image/png"`)) {
		t.Fatalf("notebook: %+v %v", r, err)
	}

	// The streamed text form, with --verbose cells on stderr.
	srv2 := recordedOllama(t, "ollama-no-tools")
	r = rehomeCLI(t, home, "ask", "--verbose", "--timeout", "2m", "--server", srv2.URL, "--file", csv, "--model", "gemma2:2b", "Which region had the most revenue?")
	if r.code != 0 || !strings.Contains(r.stdout, "South had the most revenue: 230.0.") ||
		!strings.Contains(r.stderr, "── cell 1 ──\nimport pandas") || !strings.Contains(r.stderr, "South    230.0") ||
		!strings.Contains(r.stderr, "going on with ```python blocks") || !strings.Contains(r.stderr, "plot  plot-001.png → ") {
		t.Fatalf("ask text: code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}

	// Two files, two cells in one session: the second uses what the first
	// defined; the session is gone when the command ends.
	srv3 := recordedOllama(t, "session-state")
	targets, _ := filepath.Abs(filepath.Join("..", "..", "backend", "llm", "testdata", "targets.csv"))
	r = rehomeCLI(t, home, "ask", "--json", "--timeout", "2m", "--server", srv3.URL, "--file", csv, "--file", targets, "Which region beat its target by the most?")
	var tr2 struct {
		ConversationID string `json:"conversation_id"`
		Answer         string
		Cells          []struct {
			Result struct {
				ExitCode  int `json:"exit_code"`
				Stdout    string
				SessionID string `json:"session_id"`
				Cell      int
				Files     []struct{ Kind, DataURL string }
				StateLost string `json:"state_lost"`
			}
			Fed string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &tr2); err != nil || r.code != 0 {
		t.Fatalf("ask two files: %v %+v", err, r)
	}
	if tr2.Answer != "East beat its target by the most: 21.0." || len(tr2.Cells) != 2 {
		t.Fatalf("two files: %s", r.stdout)
	}
	c1, c2 := tr2.Cells[0].Result, tr2.Cells[1].Result
	if !strings.Contains(c1.Stdout, "6 sales rows, 3 targets") || !strings.Contains(c2.Stdout, "East     21.0") ||
		c1.SessionID == "" || c2.SessionID != c1.SessionID || c2.Cell != 2 || len(c2.Files) != 1 || c2.Files[0].DataURL != "" {
		t.Fatalf("cells %+v", tr2.Cells)
	}
	out, err := exec.Command("podman", "ps", "-a", "-q", "--filter", "label=io.rehome.session="+c1.SessionID).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("the session's sandbox is left after rehome ask: %v %q", err, out)
	}
	// Continued later: a new session, and the model is told the earlier
	// variables are gone (rehome re-runs nothing by itself).
	srv4 := recordedOllama(t, "ollama-tools")
	r = rehomeCLI(t, home, "ask", "--json", "--timeout", "2m", "--server", srv4.URL, "--continue", tr2.ConversationID, "Which region had the most revenue?")
	if err := json.Unmarshal([]byte(r.stdout), &tr2); err != nil || r.code != 0 || len(tr2.Cells) != 1 {
		t.Fatalf("continue: %v %+v", err, r)
	}
	if c := tr2.Cells[0]; !strings.Contains(c.Result.StateLost, "new Python session") || !strings.Contains(c.Fed, "variables and imports from earlier calls are gone") || c.Result.SessionID == c1.SessionID {
		t.Fatalf("continued cell: %+v", c)
	}
}

// An assistant's default model: stored with --keep-model, used by a later
// `rehome ask --assistant ID` that names no model (the server's first
// tool-calling model would be chosen otherwise).
func TestAskAssistantDefaultModel(t *testing.T) {
	home := t.TempDir()
	r := rehomeCLI(t, home, "assistants", "add", "--name", "Sales", "--instructions", "Be brief.", "--json")
	var a struct{ ID string }
	if err := json.Unmarshal([]byte(r.stdout), &a); err != nil || a.ID == "" {
		t.Fatalf("add: %v %+v", err, r)
	}
	wantUsageError(t, rehomeCLI(t, home, "ask", "--keep-model", "--assistant", a.ID, "q"), "--keep-model")
	// "drop": the server answers a few words and cuts the connection: no
	// code runs, and the transcript names the model that was asked.
	srv := recordedOllama(t, "drop")
	r = rehomeCLI(t, home, "ask", "--json", "--server", srv.URL, "--assistant", a.ID, "--model", "gemma2:2b", "--keep-model", "q")
	var tr struct{ Model string }
	if err := json.Unmarshal([]byte(r.stdout), &tr); err != nil || tr.Model != "gemma2:2b" || !strings.Contains(r.stderr, "gemma2:2b is now Sales's default model") {
		t.Fatalf("keep: %v %+v", err, r)
	}
	r = rehomeCLI(t, home, "assistants", "show", a.ID, "--json")
	if !strings.Contains(r.stdout, `"model": "gemma2:2b"`) && !strings.Contains(r.stdout, `"model":"gemma2:2b"`) {
		t.Fatalf("stored: %s", r.stdout)
	}
	srv2 := recordedOllama(t, "drop")
	r = rehomeCLI(t, home, "ask", "--json", "--server", srv2.URL, "--assistant", a.ID, "q")
	if err := json.Unmarshal([]byte(r.stdout), &tr); err != nil || tr.Model != "gemma2:2b" {
		t.Fatalf("default: %v %+v", err, r)
	}
	// Without the assistant, the tool-calling model.
	srv3 := recordedOllama(t, "drop")
	r = rehomeCLI(t, home, "ask", "--json", "--server", srv3.URL, "q")
	if err := json.Unmarshal([]byte(r.stdout), &tr); err != nil || tr.Model != "qwen2.5:7b" {
		t.Fatalf("no assistant: %v %+v", err, r)
	}
}
