package llm

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"rehome/backend/models"
)

func TestActionBlockRule(t *testing.T) {
	for _, tc := range []struct {
		name, text, code string
	}{
		{"block at the end runs", "Let me look.\n\n```python\nprint(1)\n```\n", "print(1)"},
		{"py info string", "```py\nprint(1)\n```", "print(1)"},
		{"block followed by words is a quote", "```python\nprint(1)\n```\nThis prints 1.", ""},
		{"last block decides", "```python\na=1\n```\nthen\n```python\nprint(2)\n```", "print(2)"},
		{"other language", "```bash\nls\n```", ""},
		{"no language", "```\nprint(1)\n```", ""},
		{"unclosed block", "```python\nprint(1)\n", ""},
		{"empty block", "```python\n\n```", ""},
		{"tilde fence", "~~~python\nprint(3)\n~~~", "print(3)"},
		{"answer without code", "South had the most revenue.", ""},
		{"inline backticks", "Use `df.sum()` here.", ""},
		{"quoted in a blockquote", "You could run:\n\n> ```python\n> print(1)\n> ```", ""},
		{"inside a list", "Steps:\n\n- run\n\n  ```python\n  print(1)\n  ```", ""},
		{"shown inside a longer fence", "Type:\n\n````markdown\n```python\nprint(1)\n```\n````", ""},
		{"a longer fence of its own", "````python\nprint(\"```\")\n````", "print(\"```\")"},
		{"closed by a shorter fence is not closed", "````python\nprint(1)\n```", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, ok := ActionBlock(tc.text)
			if code != tc.code || ok != (tc.code != "") {
				t.Errorf("ActionBlock(%q) = %q, %v; want %q", tc.text, code, ok, tc.code)
			}
		})
	}
}

func TestThinkSplitterAcrossChunks(t *testing.T) {
	text := "a<think>b</think>c<th"
	for size := 1; size <= len(text); size++ {
		sp := tagSplitter{open: openThink, close: closeThink}
		var vis, th strings.Builder
		for i := 0; i < len(text); i += size {
			v, h := sp.feed(text[i:min(i+size, len(text))])
			vis.WriteString(v)
			th.WriteString(h)
		}
		v, h := sp.flush()
		vis.WriteString(v)
		th.WriteString(h)
		if vis.String() != "ac<th" || th.String() != "b" {
			t.Errorf("size %d: visible %q thinking %q", size, vis.String(), th.String())
		}
	}
}

func TestCodeFromArguments(t *testing.T) {
	for _, tc := range []struct{ name, args, code, err string }{
		{"python", `{"code":"print(1)"}`, "print(1)", ""},
		{"python", `"{\"code\":\"print(1)\"}"`, "print(1)", ""}, // encoded twice
		{"python", `{"script":"print(1)"}`, "print(1)", ""},     // another single string field
		{"python", "print(1)", "print(1)", ""},                  // bare code
		{"python", `{"code": 1}`, "", "no `code`"},
		{"python", `{"code":`, "", "not valid JSON"},
		{"python", "", "", "no code"},
		{"web_search", `{"q":"x"}`, "", "no tool \"web_search\""},
		{"", `{"code":"x"}`, "x", ""},
	} {
		code, err := CodeFromArguments(tc.name, tc.args)
		if code != tc.code || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("CodeFromArguments(%q, %q) = %q, %v", tc.name, tc.args, code, err)
		}
	}
}

func TestFormatOutput(t *testing.T) {
	if got := FormatOutput(CellResult{}, MaxFed); !strings.Contains(got, "no output") {
		t.Errorf("empty: %q", got)
	}
	got := FormatOutput(CellResult{ExitCode: 1, Stderr: "Traceback (most recent call last):\nKeyError: 'x'\n"}, MaxFed)
	if !strings.Contains(got, "KeyError") || !strings.Contains(got, "exit code 1") || strings.Contains(got, "no output") {
		t.Errorf("error: %q", got)
	}
	big := strings.Repeat("é123456789\n", 5000)
	got = FormatOutput(CellResult{Stdout: big, Stderr: "tail-of-stderr"}, MaxFed)
	if len(got) > MaxFed || !strings.Contains(got, "bytes left out") || !strings.Contains(got, "tail-of-stderr") {
		t.Errorf("big: %d bytes", len(got))
	}
	if !strings.Contains(got, "é123456789") || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("cut broke a character")
	}
	got = FormatOutput(CellResult{TimedOut: true, ExitCode: -1}, MaxFed)
	if !strings.Contains(got, "time limit") {
		t.Errorf("timeout: %q", got)
	}
}

func TestNormalizeBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:11434":                           "http://127.0.0.1:11434/v1",
		"http://localhost:8080/":                    "http://localhost:8080/v1",
		"http://127.0.0.1:1234/v1/":                 "http://127.0.0.1:1234/v1",
		"http://127.0.0.1:8000/v1/chat/completions": "http://127.0.0.1:8000/v1",
		"https://gpu-box.lan:8443/openai/v1/models": "https://gpu-box.lan:8443/openai/v1",
	} {
		got, err := NormalizeBaseURL(in)
		if err != nil || got != want {
			t.Errorf("NormalizeBaseURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "ftp://x", "http://"} {
		if _, err := NormalizeBaseURL(bad); err == nil {
			t.Errorf("NormalizeBaseURL(%q) took it", bad)
		}
	}
	if !IsLoopback("http://127.0.0.1:1/v1") || !IsLoopback("http://[::1]:1/v1") || !IsLoopback("http://localhost:1/v1") || IsLoopback("http://192.168.1.20:11434/v1") {
		t.Error("IsLoopback")
	}
}

func TestDiscover(t *testing.T) {
	d := "testdata/discovery/"
	ollama := newReplay(t, "")
	ollama.extra["GET /"] = d + "ollama-root.txt"
	ollama.extra["GET /v1/models"] = d + "ollama-models.json"
	llama := newReplay(t, "")
	llama.extra["GET /v1/models"] = d + "llama-server-models.json"
	llama.extra["GET /props"] = d + "llama-server-props.json"
	lms := newReplay(t, "")
	lms.extra["GET /v1/models"] = d + "lmstudio-models.json"
	lms.extra["GET /api/v0/models"] = d + "lmstudio-v0-models.json"
	lms.extra["GET /api/v0/models/qwen2.5-7b-instruct"] = d + "lmstudio-v0-model.json"
	// Ollama's /api/show is a POST keyed by the body: serve per model.
	ollama.Config.Handler = showMux(ollama, d)

	ports := map[string]int{"ollama": port(ollama.URL), "llama-server": port(llama.URL), "lmstudio": port(lms.URL), "jan": 0, "vllm": 0}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	servers, err := Discover(ctx, DiscoverOptions{Ports: ports})
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 3 {
		t.Fatalf("found %+v", servers)
	}
	want := map[string]map[string]Tools{
		"ollama":       {"qwen2.5:7b": ToolsYes, "gemma2:2b": ToolsNo},
		"llama-server": {"qwen2.5-7b-instruct-q4_k_m.gguf": ToolsYes},
		"lmstudio":     {"qwen2.5-7b-instruct": ToolsYes},
	}
	for _, s := range servers {
		w, ok := want[s.Kind]
		if !ok || !s.Loopback || len(s.Models) != len(w) {
			t.Errorf("server %+v", s)
			continue
		}
		for _, m := range s.Models {
			if w[m.ID] != m.Tools || m.ToolsSource == "" {
				t.Errorf("%s %s: tools %q (%s), want %q", s.Kind, m.ID, m.Tools, m.ToolsSource, w[m.ID])
			}
		}
	}
	// Nothing listening: not found, quickly.
	start := time.Now()
	servers, _ = Discover(ctx, DiscoverOptions{Ports: map[string]int{"ollama": 1, "llama-server": 0, "lmstudio": 0, "jan": 0, "vllm": 0}})
	if len(servers) != 0 || time.Since(start) > 2*time.Second {
		t.Errorf("closed port: %+v after %s", servers, time.Since(start))
	}
	// A URL the user gave, with the catalog's hint for a server that cannot say.
	servers, err = Discover(ctx, DiscoverOptions{URL: strings.TrimPrefix(lms.URL, "http://"),
		ToolsHint: func(string) (bool, bool, bool) { return false, false, true }})
	if err != nil || len(servers) != 1 || servers[0].Models[0].Tools != ToolsYes {
		t.Errorf("by URL: %+v %v", servers, err)
	}
	if _, err := Discover(ctx, DiscoverOptions{URL: "http://127.0.0.1:1/v1"}); err == nil || !strings.Contains(err.Error(), "no OpenAI-compatible model server answered") {
		t.Errorf("dead URL: %v", err)
	}
}

// Framing variants servers and proxies send: CRLF lines, an event split
// over two data lines, a keep-alive comment, bare JSON lines, and a JSON
// document when the server ignores stream:true.
func TestStreamFramings(t *testing.T) {
	chunk := `{"choices":[{"index":0,"delta":{"content":"%s"},"finish_reason":%s}]}`
	for name, body := range map[string]string{
		"crlf":      "data: " + fmt.Sprintf(chunk, "Sou", "null") + "\r\n\r\n: keep-alive\r\n\r\ndata: " + fmt.Sprintf(chunk, "th", `"stop"`) + "\r\n\r\ndata: [DONE]\r\n\r\n",
		"multiline": "data: {\"choices\":[{\"index\":0,\ndata: \"delta\":{\"content\":\"South\"},\"finish_reason\":\"stop\"}]}\n\n",
		"bare-json": fmt.Sprintf(chunk, "Sou", "null") + "\n" + fmt.Sprintf(chunk, "th", `"stop"`) + "\n",
	} {
		acc := newAccumulator(nil)
		if err := readSSE(strings.NewReader(body), acc, func() {}); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if r := acc.reply(); r.Message.Content != "South" || r.FinishReason != "stop" {
			t.Errorf("%s: %+v", name, r)
		}
	}
	// A server that answers with one JSON document.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"python","arguments":"{\"code\":\"print(1)\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":12,"completion_tokens":5}}`)
	}))
	defer srv.Close()
	r, err := (&Client{BaseURL: srv.URL + "/v1"}).ChatStream(context.Background(), ChatRequest{Model: "m"}, nil)
	if err != nil || len(r.Message.ToolCalls) != 1 || r.Message.ToolCalls[0].Function.Arguments != `{"code":"print(1)"}` || r.PromptTokens != 12 {
		t.Fatalf("whole document: %+v %v", r, err)
	}
	// A stream that stops sending: the idle limit ends it, saying so.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: "+fmt.Sprintf(chunk, "Sou", "null")+"\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer slow.Close()
	_, err = (&Client{BaseURL: slow.URL + "/v1", IdleTimeout: 300 * time.Millisecond}).ChatStream(context.Background(), ChatRequest{Model: "m"}, nil)
	if err == nil || !strings.Contains(err.Error(), "sent no answer for 300ms") {
		t.Fatalf("idle: %v", err)
	}
}

func TestFitNote(t *testing.T) {
	cpu := models.Machine{RAMBytes: 24 << 30}
	gpu := models.Machine{VRAMBytes: 24 << 30, GPUs: 1, RAMBytes: 64 << 30}
	tiny := models.Machine{RAMBytes: 4 << 30}
	if n := FitNote("qwen2.5:7b", gpu); !strings.HasPrefix(n, "fits in your VRAM") {
		t.Errorf("gpu: %q", n)
	}
	if n := FitNote("qwen2.5:7b", cpu); !regexp.MustCompile(`^will not fit in your VRAM \(needs [\d.]+ GiB, no GPU here\): expect about [\d.]+ tok/s on the CPU$`).MatchString(n) {
		t.Errorf("cpu: %q", n)
	}
	// 7B at 4 bits is about 4.7 GB of weights read per token: ~4 tok/s at 20 GB/s.
	if f, ok := FitOf("qwen2.5:7b", cpu); !ok || f.Verdict != models.VerdictCPU || f.CPUTokensPerSecond < 3 || f.CPUTokensPerSecond > 6 {
		t.Errorf("cpu speed: %+v %v", f, ok)
	}
	if n := FitNote("qwen2.5:7b", tiny); !strings.HasPrefix(n, "will not fit in this machine's memory") {
		t.Errorf("tiny: %q", n)
	}
	if n := FitNote("my-own-model", gpu); n != "" {
		t.Errorf("unknown: %q", n)
	}
}
