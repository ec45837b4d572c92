package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// `rehome models settings` keeps a model's settings in the data folder,
// and `rehome ask` sends them (the recorded server sees "temperature" and
// the system prompt on the wire); a flag goes over the saved value for
// that question only; out of range is bad usage, in words.
func TestModelSettingsCLI(t *testing.T) {
	home := t.TempDir()
	r := rehomeCLI(t, home, "models", "settings")
	if r.code != 0 || !strings.Contains(r.stdout, "No model has settings of its own") {
		t.Fatalf("none yet: %+v", r)
	}
	r = rehomeCLI(t, home, "models", "settings", "qwen2.5:7b", "--temperature", "0.25", "--system-prompt", "Answer in French.")
	if r.code != 0 || !strings.Contains(r.stdout, "temperature: 0.25") || !strings.Contains(r.stdout, `system prompt: "Answer in French."`) {
		t.Fatalf("set: %+v", r)
	}
	r = rehomeCLI(t, home, "models", "settings", "qwen2.5:7b", "--context", "4096", "--json")
	var kept struct {
		Temperature  float64 `json:"temperature"`
		Context      int     `json:"context"`
		SystemPrompt string  `json:"system_prompt"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &kept); err != nil || kept.Temperature != 0.25 || kept.Context != 4096 || kept.SystemPrompt != "Answer in French." {
		t.Fatalf("a second flag keeps the first: %v %+v %s", err, kept, r.stdout)
	}
	if r := rehomeCLI(t, home, "models", "settings", "qwen2.5:7b", "--temperature", "7"); r.code != 1 || !strings.Contains(r.stderr, "0 to 2") {
		t.Fatalf("out of range: %+v", r)
	}
	wantUsageError(t, rehomeCLI(t, home, "ask", "--temperature", "-1", "q"), "temperature")

	needPodman(t)
	for _, c := range []struct {
		flags []string
		want  float64
	}{{nil, 0.25}, {[]string{"--temperature", "0.8"}, 0.8}} {
		srv := recordedOllama(t, "escapes-answer")
		args := append([]string{"ask", "--server", srv.Base(), "--model", "qwen2.5:7b"}, c.flags...)
		r = rehomeCLI(t, home, append(args, "Hello?")...)
		if r.code != 0 {
			t.Fatalf("ask: %+v", r)
		}
		bodies := srv.Bodies()
		var body struct {
			Temperature float64 `json:"temperature"`
			Messages    []struct{ Role, Content string }
		}
		if len(bodies) != 1 || json.Unmarshal([]byte(bodies[0]), &body) != nil || body.Temperature != c.want || body.Messages[0].Role != "system" || !strings.Contains(body.Messages[0].Content, "Answer in French.") {
			t.Fatalf("%v on the wire: %s", c.flags, bodies)
		}
		if !strings.Contains(r.stderr, "qwen2.5:7b: temperature ") || !strings.Contains(r.stderr, "context 4096 tokens asked, the server decides its own") {
			t.Fatalf("the settings said: %s", r.stderr)
		}
	}
	if r := rehomeCLI(t, home, "models", "settings", "qwen2.5:7b", "--json"); !strings.Contains(r.stdout, `"temperature": 0.25`) {
		t.Fatalf("the flag changed the saved settings: %s", r.stdout)
	}
	if r := rehomeCLI(t, home, "models", "settings", "qwen2.5:7b", "--clear"); r.code != 0 || !strings.Contains(r.stdout, "temperature: the server's") {
		t.Fatalf("clear: %+v", r)
	}
}
