package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Known is a model server rehome looks for on this machine, at its
// default port.
type Known struct {
	Kind string // "ollama", "llama-server", "lmstudio", "jan", "vllm"
	Name string // what the user knows it as
	Port int
}

// KnownServers are the servers people run, at their default ports.
var KnownServers = []Known{
	{"ollama", "Ollama", 11434},
	{"llama-server", "llama.cpp llama-server", 8080},
	{"lmstudio", "LM Studio", 1234},
	{"jan", "Jan", 1337},
	{"vllm", "vLLM", 8000},
}

// Tools says whether a model calls tools: "yes", "no" or "unknown".
type Tools string

// The answers about tool calling.
const (
	ToolsYes     Tools = "yes"
	ToolsNo      Tools = "no"
	ToolsUnknown Tools = "unknown"
)

// ModelInfo is a model a server offers, with what is known of it.
type ModelInfo struct {
	ID    string `json:"id"`
	Tools Tools  `json:"tools"`
	// ToolsSource says how that is known ("the server (/api/show)",
	// "rehome's catalog", …).
	ToolsSource string `json:"tools_source,omitempty"`
	Vision      bool   `json:"vision,omitempty"`
	// Fit says how it fits this machine's memory (see FitNote); "" when
	// rehome's catalog does not know the model.
	Fit string `json:"fit,omitempty"`
}

// Server is a model server found (or named by the user).
type Server struct {
	Kind    string `json:"kind"` // a Known kind, or "openai" for any other
	Name    string `json:"name"`
	BaseURL string `json:"base_url"`
	// Loopback is false for a server on another machine: an explicit
	// choice, shown as such (the question and the files' descriptions
	// leave this machine).
	Loopback bool        `json:"loopback"`
	Models   []ModelInfo `json:"models"`
	// Error is set when the server answered but its models could not be
	// listed.
	Error string `json:"error,omitempty"`
}

// DiscoverOptions tune Discover.
type DiscoverOptions struct {
	// URL is a server the user named; when set only it is asked.
	URL string
	// Timeout bounds each probe (default 400 ms: a loopback port answers
	// in microseconds or refuses at once).
	Timeout time.Duration
	// Host replaces 127.0.0.1 for the default ports (tests).
	Host string
	// Ports replaces the default port of a kind (tests).
	Ports map[string]int
	// ToolsHint says from rehome's catalog whether a model calls tools,
	// for servers that cannot say; nil: none.
	ToolsHint func(model string) (tools, vision, ok bool)
}

// Discover finds the model servers on this machine's default ports (or
// asks the one at opts.URL) and lists their models and whether each
// calls tools. Servers that do not answer are left out.
func Discover(ctx context.Context, opts DiscoverOptions) ([]Server, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 400 * time.Millisecond
	}
	if opts.URL != "" {
		base, err := NormalizeBaseURL(opts.URL)
		if err != nil {
			return nil, err
		}
		s, ok := probe(ctx, base, "", opts)
		if !ok {
			return nil, fmt.Errorf("no OpenAI-compatible model server answered at %s (is it running? Ollama: `ollama serve`; llama.cpp: `llama-server -m MODEL.gguf --jinja`)", base)
		}
		return []Server{s}, nil
	}
	host := opts.Host
	if host == "" {
		host = "127.0.0.1"
	}
	out := make([]Server, len(KnownServers))
	found := make([]bool, len(KnownServers))
	var wg sync.WaitGroup
	for i, k := range KnownServers {
		port := k.Port
		if p, ok := opts.Ports[k.Kind]; ok {
			port = p
		}
		if port == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], found[i] = probe(ctx, fmt.Sprintf("http://%s:%d/v1", host, port), k.Kind, opts)
		}()
	}
	wg.Wait()
	var servers []Server
	for i := range out {
		if found[i] {
			servers = append(servers, out[i])
		}
	}
	return servers, nil
}

// probe asks base for its models; ok is false when nothing answers there.
// kind is the server expected at that port ("" when unknown); what the
// server says of itself wins.
func probe(ctx context.Context, base, kind string, opts DiscoverOptions) (Server, bool) {
	hc := &http.Client{Timeout: opts.Timeout}
	c := &Client{BaseURL: base, HTTP: hc}
	root := strings.TrimSuffix(base, "/v1")
	s := Server{BaseURL: base, Loopback: IsLoopback(base), Models: []ModelInfo{}}
	ms, err := c.Models(ctx)
	if err != nil {
		var se *ServerError
		if !errors.As(err, &se) {
			return s, false // nothing listening, or not HTTP
		}
		s.Error = se.Error()
	}
	s.Kind = identify(ctx, hc, root, kind)
	s.Name = s.Kind
	for _, k := range KnownServers {
		if k.Kind == s.Kind {
			s.Name = k.Name
		}
	}
	if s.Kind == "openai" {
		s.Name = "OpenAI-compatible server"
	}
	for _, m := range ms {
		mi := ModelInfo{ID: m.ID, Tools: ToolsUnknown}
		switch s.Kind {
		case "ollama":
			ollamaShow(ctx, hc, root, &mi)
		case "llama-server":
			llamaProps(ctx, hc, root, &mi)
		case "lmstudio":
			lmstudioCaps(ctx, hc, root, &mi)
		}
		if mi.Tools == ToolsUnknown && opts.ToolsHint != nil {
			if tools, vision, ok := opts.ToolsHint(m.ID); ok {
				mi.Tools, mi.ToolsSource = ToolsNo, "rehome's catalog"
				if tools {
					mi.Tools = ToolsYes
				}
				mi.Vision = mi.Vision || vision
			}
		}
		s.Models = append(s.Models, mi)
	}
	return s, true
}

// isOllama says whether the server at root is Ollama: "Ollama is running"
// at its root path, as every Ollama version says.
func isOllama(ctx context.Context, hc *http.Client, root string) bool {
	body, ok := get(ctx, hc, strings.TrimRight(root, "/")+"/")
	return ok && strings.Contains(string(body), "Ollama is running")
}

// identify tells the server's kind from what it says at its root.
func identify(ctx context.Context, hc *http.Client, root, guess string) string {
	if isOllama(ctx, hc, root) {
		return "ollama"
	}
	if body, ok := get(ctx, hc, root+"/props"); ok && strings.Contains(string(body), "default_generation_settings") {
		return "llama-server"
	}
	if body, ok := get(ctx, hc, root+"/api/v0/models"); ok && isLMStudioList(body) {
		return "lmstudio"
	}
	if body, ok := get(ctx, hc, root+"/version"); ok && strings.Contains(string(body), `"version"`) && guess == "vllm" {
		return "vllm"
	}
	if guess == "jan" || guess == "vllm" {
		return guess
	}
	return "openai"
}

// isLMStudioList tells LM Studio's own model list (entries with its
// "type", "state" or "publisher") from an OpenAI list that a plain server
// sends for any path ending in /models.
func isLMStudioList(body []byte) bool {
	var v struct {
		Data []map[string]json.RawMessage `json:"data"`
	}
	if json.Unmarshal(body, &v) != nil || len(v.Data) == 0 {
		return false
	}
	for _, k := range []string{"type", "state", "publisher"} {
		if _, ok := v.Data[0][k]; ok {
			return true
		}
	}
	return false
}

func get(ctx context.Context, hc *http.Client, u string) ([]byte, bool) {
	return do(ctx, hc, http.MethodGet, u, nil)
}

func do(ctx context.Context, hc *http.Client, method, u string, body io.Reader) ([]byte, bool) {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, false
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return data, err == nil && resp.StatusCode == http.StatusOK
}

// ollamaShow asks Ollama's /api/show for the model's capabilities
// ("completion", "tools", "vision", "thinking"; Ollama 0.6.4 and later).
func ollamaShow(ctx context.Context, hc *http.Client, root string, mi *ModelInfo) {
	q, _ := json.Marshal(map[string]string{"model": mi.ID})
	body, ok := do(ctx, hc, http.MethodPost, root+"/api/show", strings.NewReader(string(q)))
	if !ok {
		return
	}
	var v struct {
		Capabilities []string `json:"capabilities"`
	}
	if json.Unmarshal(body, &v) != nil || v.Capabilities == nil {
		return
	}
	mi.Tools, mi.ToolsSource = ToolsNo, "the server (/api/show)"
	if slices.Contains(v.Capabilities, "tools") {
		mi.Tools = ToolsYes
	}
	mi.Vision = slices.Contains(v.Capabilities, "vision")
}

// llamaProps reads llama-server's /props: with --jinja any chat template
// takes tools (llama.cpp falls back to a generic format), and newer
// builds say what the template supports in chat_template_caps.
func llamaProps(ctx context.Context, hc *http.Client, root string, mi *ModelInfo) {
	body, ok := get(ctx, hc, root+"/props")
	if !ok {
		return
	}
	var v struct {
		Caps map[string]any `json:"chat_template_caps"`
		// Modalities: a server started with an --mmproj reads images.
		Modalities struct {
			Vision bool `json:"vision"`
		} `json:"modalities"`
	}
	if json.Unmarshal(body, &v) != nil {
		return
	}
	mi.Vision = v.Modalities.Vision
	for _, k := range []string{"supports_tool_calls", "supports_tools"} {
		if b, ok := v.Caps[k].(bool); ok {
			mi.Tools, mi.ToolsSource = ToolsNo, "the server (/props chat_template_caps)"
			if b {
				mi.Tools = ToolsYes
			}
			return
		}
	}
	mi.ToolsSource = "llama-server calls tools when started with --jinja"
}

// lmstudioCaps reads LM Studio's native model list (/api/v0/models:
// "capabilities": ["tool_use"]).
func lmstudioCaps(ctx context.Context, hc *http.Client, root string, mi *ModelInfo) {
	body, ok := get(ctx, hc, root+"/api/v0/models/"+url.PathEscape(mi.ID))
	if !ok {
		return
	}
	var v struct {
		Type         string   `json:"type"`
		Capabilities []string `json:"capabilities"`
	}
	if json.Unmarshal(body, &v) != nil {
		return
	}
	mi.Tools, mi.ToolsSource = ToolsNo, "the server (/api/v0/models)"
	if slices.Contains(v.Capabilities, "tool_use") {
		mi.Tools = ToolsYes
	}
	mi.Vision = v.Type == "vlm"
}
