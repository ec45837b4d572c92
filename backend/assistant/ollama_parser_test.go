package assistant

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ollamaParser builds testdata/ollamacheck: Ollama's own Modelfile parser
// (github.com/ollama/ollama/parser, pinned in that module's go.mod). The
// build needs the module in the Go module cache or the Go proxy; without
// either the test says how to get it and skips, or fails under
// REHOME_REQUIRE_TOOLS=1 (as in `make test`, whose setup fetches it).
func ollamaParser(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the check against Ollama's own parser builds a separate module")
	}
	missing := t.Skipf
	if os.Getenv("REHOME_REQUIRE_TOOLS") == "1" {
		missing = t.Fatalf
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		missing("no go command to build Ollama's parser with")
	}
	bin := filepath.Join(t.TempDir(), "ollamacheck")
	cmd := exec.Command(goBin, "build", "-mod=readonly", "-o", bin, ".")
	cmd.Dir = filepath.Join("testdata", "ollamacheck")
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		missing("could not build Ollama's parser (Go proxy unreachable and module not cached?): %v\n%s\nrun `go -C backend/assistant/testdata/ollamacheck build` once with the proxy reachable", err, out)
	}
	return bin
}

type ollamaRead struct {
	From       string         `json:"from"`
	System     string         `json:"system"`
	Parameters map[string]any `json:"parameters"`
	Messages   []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

// TestModelfileWithOllamasParser feeds rehome's Modelfiles to the parser
// `ollama create` uses and checks that Ollama reads back the model, the
// system prompt byte for byte, the parameters and the greeting.
func TestModelfileWithOllamasParser(t *testing.T) {
	bin := ollamaParser(t)
	cases := []struct {
		name         string
		a            Assistant
		opts         ExportOptions
		wantSystem   string
		wantMessages int
	}{
		{"sample", sample(), ExportOptions{Model: "qwen2.5:7b", Parameters: []Parameter{{"temperature", "0.2"}, {"stop", "User:"}, {"stop", "<|im_end|>"}}}, sample().Instructions, 1},
		{"quotes at line ends", Assistant{Name: `Say "hi"`, Instructions: "Say \"hi\"\nthen \"bye\"\"", Starters: []string{`Quote "this"`}}, ExportOptions{Model: "llama3.2:3b"}, "Say \"hi\"\nthen \"bye\"\"", 1},
		{"tabs and CRLF", Assistant{Name: "T", Instructions: "a\tb\r\nc"}, ExportOptions{Model: "m"}, "a\tb\r\nc", 0},
		{"triple quotes", Assistant{Name: "T", Instructions: "Use \"\"\"docstrings\"\"\"\nlike \"\"\""}, ExportOptions{Model: "m"}, "Use '''docstrings'''\nlike '''", 0},
		{"odd spaces", Assistant{Name: "T", Instructions: "a\u00a0b\u200bc\u2009d"}, ExportOptions{Model: "m"}, "a bc d", 0},
		{"blank lines around", Assistant{Name: "T", Instructions: "\n\n  x  \n\n"}, ExportOptions{Model: "m"}, "\n\n  x  \n\n", 0},
		{"comment-like line", Assistant{Name: "T", Instructions: "# Heading\nFROM here on, be brief.\nPARAMETER x", Starters: []string{"a"}}, ExportOptions{Model: "m", NoGreeting: true}, "# Heading\nFROM here on, be brief.\nPARAMETER x", 0},
		{"unicode", Assistant{Name: "Übersetzer 日本", Instructions: "Übersetze ins Deutsche. 日本語もOK。 Emoji 🚀."}, ExportOptions{Model: "hf.co/org/model-GGUF:Q4_K_M"}, "Übersetze ins Deutsche. 日本語もOK。 Emoji 🚀.", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, _, err := Modelfile(c.a, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin)
			cmd.Stdin = strings.NewReader(text)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("Ollama's parser rejects the Modelfile: %v: %s\n%s", err, stderr.String(), text)
			}
			var got ollamaRead
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if got.From != c.opts.Model {
				t.Errorf("FROM %q, want %q", got.From, c.opts.Model)
			}
			if got.System != c.wantSystem {
				t.Errorf("system %q\nwant   %q\n%s", got.System, c.wantSystem, text)
			}
			if len(got.Messages) != c.wantMessages {
				t.Fatalf("%d messages, want %d", len(got.Messages), c.wantMessages)
			}
			if c.wantMessages > 0 {
				g, _ := greeting(c.a)
				if got.Messages[0].Role != "assistant" || got.Messages[0].Content != g {
					t.Errorf("message %+v, want %q", got.Messages[0], g)
				}
			}
			if got.Parameters["num_ctx"] != float64(8192) {
				t.Errorf("num_ctx %v", got.Parameters["num_ctx"])
			}
			for _, p := range c.opts.Parameters {
				if p.Name == "temperature" && got.Parameters["temperature"] != 0.2 {
					t.Errorf("temperature %v", got.Parameters["temperature"])
				}
				if p.Name == "stop" {
					stops, _ := got.Parameters["stop"].([]any)
					if len(stops) != 2 || stops[0] != "User:" || stops[1] != "<|im_end|>" {
						t.Errorf("stop %v", got.Parameters["stop"])
					}
				}
			}
		})
	}
}
