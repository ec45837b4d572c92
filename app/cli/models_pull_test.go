package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeOllama is a real HTTP server answering as Ollama does: its root says
// "Ollama is running" and /api/pull replays the first n lines of Ollama's
// recorded stream (backend/llm/testdata/ollama-pull-llama3.2.md), then
// holds the connection when hold is set, or sends tail.
func fakeOllama(t *testing.T, n int, hold bool, tail string) (string, chan string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "backend", "llm", "testdata", "ollama-pull-llama3.2.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSpace(b), []byte("\n"))
	if n > 0 && n < len(lines) {
		lines = lines[:n]
	}
	asked := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			io.WriteString(w, "Ollama is running")
			return
		}
		var req struct{ Model string }
		json.NewDecoder(r.Body).Decode(&req)
		asked <- req.Model
		w.Header().Set("Content-Type", "application/x-ndjson")
		for _, l := range lines {
			w.Write(bytes.TrimRight(l, "\n"))
			w.Write([]byte("\n"))
			w.(http.Flusher).Flush()
			time.Sleep(5 * time.Millisecond)
		}
		io.WriteString(w, tail)
		if hold {
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, asked
}

// TestModelsPull: `rehome models pull` has Ollama pull the catalog's tag
// and shows its progress in GiB; Ctrl-C stops it mid-stream; Ollama's
// error line comes back; with no Ollama it names the file to carry.
func TestModelsPull(t *testing.T) {
	home := t.TempDir()
	url, asked := fakeOllama(t, 0, false, "")
	t.Setenv("OLLAMA_HOST", url)
	r := rehomeCLI(t, home, "models", "pull", "llama-3.2-1b-instruct")
	if r.code != 0 || !strings.Contains(r.stdout, "llama3.2:1b is pulled (1.9 GiB)") || !strings.Contains(r.stderr, "pulling dde5aa3fc5ff: ") || !strings.Contains(r.stderr, "GiB (") {
		t.Fatalf("models pull: %+v", r)
	}
	if m := <-asked; m != "llama3.2:1b" {
		t.Fatalf("Ollama was asked for %q, want the catalog's tag llama3.2:1b", m)
	}

	t.Run("cancel", func(t *testing.T) {
		url, _ := fakeOllama(t, 5, true, "")
		t.Setenv("OLLAMA_HOST", url)
		l := startCLI(t, home, "models", "pull", "llama3.2:1b")
		l.waitFor(t, "the weights' progress", 30*time.Second, func(_, e string) bool { return strings.Contains(e, "0.3 GiB of 1.9 GiB") })
		l.interrupt(t, exitInterrupted, "")
	})

	t.Run("error line", func(t *testing.T) {
		url, _ := fakeOllama(t, 3, false, `{"error":"max retries exceeded: dial tcp: lookup registry.ollama.ai: no such host"}`+"\n")
		t.Setenv("OLLAMA_HOST", url)
		r := rehomeCLI(t, home, "models", "pull", "llama3.2:1b")
		if r.code != 1 || !strings.Contains(r.stderr, "the Ollama server could not pull llama3.2:1b: max retries exceeded") || !strings.Contains(r.stderr, "rehome models add FILE") {
			t.Fatalf("error line: %+v", r)
		}
	})

	t.Run("no Ollama", func(t *testing.T) {
		t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
		r := rehomeCLI(t, home, "models", "pull", "qwen2.5-7b-instruct")
		if r.code != 1 || !strings.Contains(r.stderr, "no Ollama server answers at http://127.0.0.1:1") ||
			!strings.Contains(r.stderr, "carry qwen2.5-7b-instruct-q4_k_m.gguf (Qwen2.5 7B Instruct at Q4_K_M, about 4.7 GB") {
			t.Fatalf("no Ollama: %+v", r)
		}
	})
	wantUsageError(t, rehomeCLI(t, home, "models", "pull"), "give one model")
}
