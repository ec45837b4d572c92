package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// pullFixture is Ollama's real /api/pull stream for llama3.2
// (testdata/ollama-pull-llama3.2.md says where each byte comes from).
func pullFixture(t *testing.T) [][]byte {
	t.Helper()
	b, err := os.ReadFile("testdata/ollama-pull-llama3.2.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if len(l) > 0 {
			lines = append(lines, l)
		}
	}
	return lines
}

// ollamaReplay is a real HTTP server that answers /api/pull as Ollama
// does: the lines given, each flushed, then whatever end does.
func ollamaReplay(t *testing.T, lines [][]byte, end func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, chan string) {
	t.Helper()
	asked := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			io.WriteString(w, "Ollama is running")
			return
		}
		if r.Method != http.MethodPost || r.URL.Path != "/api/pull" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !req.Stream {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		asked <- req.Model
		w.Header().Set("Content-Type", "application/x-ndjson")
		for _, l := range lines {
			w.Write(l)
			w.(http.Flusher).Flush()
		}
		if end != nil {
			end(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, asked
}

func TestOllamaPullReplaysStream(t *testing.T) {
	srv, asked := ollamaReplay(t, pullFixture(t), nil)
	if !OllamaRunning(context.Background(), srv.URL) {
		t.Fatal("OllamaRunning: false for a server that says so")
	}
	var seen []PullProgress
	err := OllamaPull(context.Background(), srv.URL, "llama3.2", func(p PullProgress) { seen = append(seen, p) })
	if err != nil {
		t.Fatal(err)
	}
	if m := <-asked; m != "llama3.2" {
		t.Fatalf("asked for %q", m)
	}
	if len(seen) != len(pullFixture(t)) {
		t.Fatalf("%d progress calls for %d lines", len(seen), len(pullFixture(t)))
	}
	const total = 2019377376 + 1429 + 7711 + 6016 + 96 + 561
	last := seen[len(seen)-1]
	if last.Status != "success" || last.Done != total || last.Total != total || last.Percent != 100 {
		t.Fatalf("last: %+v, want success with %d of %d", last, total, total)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Done < seen[i-1].Done {
			t.Fatalf("progress went back: %+v after %+v", seen[i], seen[i-1])
		}
	}
	// A weights line in the user's words, in GiB with the percent.
	var mid PullProgress
	for _, p := range seen {
		if p.Done == 838860800 {
			mid = p
		}
	}
	if mid.Text != "pulling dde5aa3fc5ff: 0.8 GiB of 1.9 GiB (42%)" {
		t.Fatalf("text: %q", mid.Text)
	}
	// The first weights line has no "completed" (omitempty): 0 done.
	if seen[1].Done != 0 || seen[1].Total != 2019377376 {
		t.Fatalf("first weights line: %+v", seen[1])
	}
}

func TestOllamaPullCancelMidStream(t *testing.T) {
	lines := pullFixture(t)[:5] // manifest, then weights up to 300 MiB
	gone := make(chan struct{})
	srv, _ := ollamaReplay(t, lines, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // Ollama goes on until the client leaves
		close(gone)
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last PullProgress
	err := OllamaPull(ctx, srv.URL, "llama3.2", func(p PullProgress) {
		last = p
		if p.Done >= 314572800 {
			cancel()
		}
	})
	if !errors.Is(err, ErrPullCancelled) {
		t.Fatalf("err = %v, want ErrPullCancelled", err)
	}
	if last.Done != 314572800 {
		t.Fatalf("last progress %+v", last)
	}
	select {
	case <-gone:
	case <-time.After(5 * time.Second):
		t.Fatal("the server still held the connection 5 s after the cancel")
	}
}

func TestOllamaPullErrorLine(t *testing.T) {
	// What Ollama streams when the registry cannot be reached half way.
	lines := append(pullFixture(t)[:3:3], []byte(`{"error":"max retries exceeded: Get \"https://registry.ollama.ai/v2/library/llama3.2/blobs/sha256:dde5aa3fc5ffc17176b5e8bdc82f587b24b2678c6c66101bf7da77af9f7ccdff\": dial tcp: lookup registry.ollama.ai: no such host"}`+"\n"))
	srv, _ := ollamaReplay(t, lines, nil)
	err := OllamaPull(context.Background(), srv.URL, "llama3.2", nil)
	if err == nil || !strings.Contains(err.Error(), "max retries exceeded") || !strings.Contains(err.Error(), "rehome models add FILE") {
		t.Fatalf("err = %v", err)
	}
	if errors.Is(err, ErrPullCancelled) {
		t.Fatal("an error line read as a cancel")
	}
}

func TestOllamaPullRefused(t *testing.T) {
	// An unknown model: Ollama answers before streaming, with the status.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":"pull model manifest: file does not exist"}`)
	}))
	defer srv.Close()
	err := OllamaPull(context.Background(), srv.URL, "no-such-model", nil)
	if err == nil || !strings.Contains(err.Error(), "file does not exist") || !strings.Contains(err.Error(), "no model by that name") {
		t.Fatalf("err = %v", err)
	}
}

func TestOllamaPullEndsWithoutSuccess(t *testing.T) {
	srv, _ := ollamaReplay(t, pullFixture(t)[:4], nil) // the connection ends mid-weights
	err := OllamaPull(context.Background(), srv.URL, "llama3.2", nil)
	if err == nil || !strings.Contains(err.Error(), "before saying it succeeded") {
		t.Fatalf("err = %v", err)
	}
	srv2, _ := ollamaReplay(t, [][]byte{[]byte("<html>not ollama</html>\n")}, nil)
	if err := OllamaPull(context.Background(), srv2.URL, "llama3.2", nil); err == nil || !strings.Contains(err.Error(), "is the server at that address Ollama") {
		t.Fatalf("err = %v", err)
	}
}

func TestOllamaRoot(t *testing.T) {
	for in, want := range map[string]string{
		"":                       OllamaDefault,
		"0.0.0.0":                "http://127.0.0.1:11434",
		"127.0.0.1:9999":         "http://127.0.0.1:9999",
		"http://gpu-box:11434/":  "http://gpu-box:11434",
		"https://ollama.example": "https://ollama.example:11434",
	} {
		t.Setenv("OLLAMA_HOST", in)
		if got := OllamaRoot(); got != want {
			t.Errorf("OLLAMA_HOST=%q: %q, want %q", in, got, want)
		}
	}
}
