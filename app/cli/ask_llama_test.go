package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// TestAskCLILlamaServer runs `rehome ask` end to end against llama.cpp's
// real llama-server serving the tiny hand-set model: the model calls
// python (streamed in fragments), the real sandbox runs the code on the
// CSV, the plot is saved, the model answers.
func TestAskCLILlamaServer(t *testing.T) {
	script := tinymodel.DefaultScript("sales.csv", "region", "revenue")
	srv := llamatest.Start(t, script)
	t.Logf("llama-server healthy %s after start", srv.Started.Round(time.Millisecond))
	home := t.TempDir()
	csv, _ := filepath.Abs(filepath.Join("..", "..", "backend", "llm", "testdata", "sales.csv"))

	// llm status knows it for llama-server, with tool calling.
	r := rehomeCLI(t, home, "llm", "status", "--server", srv.URL, "--json")
	var servers []struct {
		Kind   string
		Models []struct{ ID, Tools string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &servers); err != nil || r.code != 0 || len(servers) != 1 ||
		servers[0].Kind != "llama-server" || len(servers[0].Models) != 1 || servers[0].Models[0].Tools != "yes" {
		t.Fatalf("llm status: %v %+v", err, r)
	}

	needPodman(t)
	start := time.Now()
	r = rehomeCLI(t, home, "ask", "--server", srv.URL, "--timeout", "2m", "--file", csv, "Which region had the most revenue?", "--json")
	if r.code != 0 {
		t.Fatalf("ask: %+v", r)
	}
	t.Logf("rehome ask --json: %s", time.Since(start).Round(time.Millisecond))
	var tr struct {
		Answer  string
		Stopped string
		Mode    string
		Turns   []struct{ Text string }
		Files   []struct{ Name, Kind, Path string }
		Cells   []struct {
			Code   string
			Via    string
			Result struct {
				ExitCode int `json:"exit_code"`
				Stdout   string
				Stderr   string
				Files    []struct{ Name, Kind, Path string }
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &tr); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, r.stdout)
	}
	if tr.Stopped != "answered" || tr.Mode != "tools" || tr.Answer != strings.Join(script.Answer, "") || len(tr.Cells) != 1 ||
		len(tr.Turns) != 2 || tr.Turns[0].Text != strings.Join(script.Before, "") {
		t.Fatalf("transcript %s", r.stdout)
	}
	c := tr.Cells[0]
	if c.Via != "tool_call" || c.Code != strings.Join(script.Code, "") || c.Result.ExitCode != 0 ||
		!strings.Contains(c.Result.Stdout, "revenue") || !strings.Contains(c.Result.Stdout, "mean") || len(c.Result.Files) != 1 || len(tr.Files) != 1 {
		t.Fatalf("cell %+v", c)
	}
	f := c.Result.Files[0]
	png, err := os.ReadFile(f.Path)
	if f.Kind != "plot" || err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) || !strings.HasPrefix(f.Path, home) {
		t.Fatalf("plot %+v: %v", f, err)
	}

	// The text form: the words stream to stdout, the plot is named.
	r = rehomeCLI(t, home, "ask", "--server", srv.URL, "--timeout", "2m", "--file", csv, "Which region had the most revenue?")
	if r.code != 0 || !strings.Contains(r.stdout, strings.Join(script.Before, "")) || !strings.Contains(r.stdout, strings.Join(script.Answer, "")) ||
		!strings.Contains(r.stderr, "rehome: cell 1: exit 0, 1 plot") || !strings.Contains(r.stderr, "plot  plot-001.png → ") {
		t.Fatalf("ask text: code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}
