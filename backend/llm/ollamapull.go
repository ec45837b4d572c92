package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"rehome/backend/bytesize"
)

// OllamaDefault is where Ollama listens unless OLLAMA_HOST says otherwise.
const OllamaDefault = "http://127.0.0.1:11434"

// OllamaRoot is the Ollama server this machine's `ollama` command talks to:
// $OLLAMA_HOST (Ollama's own variable: "host", "host:port" or a URL), else
// 127.0.0.1:11434.
func OllamaRoot() string {
	h := strings.TrimSpace(os.Getenv("OLLAMA_HOST"))
	if h == "" {
		return OllamaDefault
	}
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	u, err := url.Parse(h)
	if err != nil || u.Host == "" {
		return OllamaDefault
	}
	if u.Port() == "" {
		u.Host += ":11434"
	}
	if u.Hostname() == "0.0.0.0" { // listening everywhere: reach it here
		u.Host = "127.0.0.1:" + u.Port()
	}
	return strings.TrimRight(u.Scheme+"://"+u.Host+u.Path, "/")
}

// OllamaRunning says whether an Ollama server answers at root (the check
// discovery identifies Ollama by).
func OllamaRunning(ctx context.Context, root string) bool {
	return isOllama(ctx, &http.Client{Timeout: 800 * time.Millisecond}, root)
}

// PullProgress is how far an Ollama pull is, summed over the model's
// files (a model is several blobs: weights, template, licence, params).
type PullProgress struct {
	Model string `json:"model"`
	// Status is Ollama's own word for the step ("pulling manifest",
	// "pulling 6a0746a1ec1a", "verifying sha256 digest", "success").
	Status string `json:"status"`
	// Done and Total are the bytes downloaded and to download of every
	// file seen so far; Percent is Done of Total (0 before any total).
	Done    int64   `json:"done"`
	Total   int64   `json:"total"`
	Percent float64 `json:"percent"`
	// Text says it in the user's words: "pulling 6a0746a1ec1a: 1.2 GiB of
	// 4.4 GiB (27%)".
	Text string `json:"text"`
}

// pullLine is one line of Ollama's /api/pull stream (api.ProgressResponse
// in ollama/api/types.go, or a gin.H with "error").
type pullLine struct {
	Status    string `json:"status"`
	Digest    string `json:"digest"`
	Total     int64  `json:"total"`
	Completed int64  `json:"completed"`
	Error     string `json:"error"`
}

// maxPullLine bounds one line of the stream: Ollama's are under 200 bytes.
const maxPullLine = 64 << 10

// OllamaPull asks the Ollama server at root to pull model (its `POST
// /api/pull`, streamed), calling progress for each line. It returns when
// Ollama says "success", with Ollama's own error when it sends one, or
// with ErrPullCancelled when ctx ends (Ollama keeps what it downloaded and
// resumes from there next time). rehome downloads nothing itself.
func OllamaPull(ctx context.Context, root, model string, progress func(PullProgress)) error {
	body, _ := json.Marshal(map[string]any{"model": model, "name": model, "stream": true})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(root, "/")+"/api/pull", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	// No overall timeout: a pull of gigabytes takes what it takes; ctx
	// ends it. A server that accepts and never answers is ended by ctx too.
	resp, err := (&http.Client{Transport: &http.Transport{Proxy: nil, ResponseHeaderTimeout: 30 * time.Second}}).Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %s", ErrPullCancelled, model)
		}
		return fmt.Errorf("no Ollama answered at %s: %v (is it running? `ollama serve`)", root, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		var l pullLine
		if json.Unmarshal(b, &l) == nil && l.Error != "" {
			return pullError(model, l.Error)
		}
		return fmt.Errorf("the Ollama server refused to pull %s: %s %s", model, resp.Status, strings.TrimSpace(string(b)))
	}
	return readPull(ctx, resp.Body, model, progress)
}

// readPull reads the NDJSON stream, summing the bytes over digests.
func readPull(ctx context.Context, r io.Reader, model string, progress func(PullProgress)) error {
	type blob struct{ total, done int64 }
	blobs := map[string]*blob{}
	var order []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxPullLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var l pullLine
		if err := json.Unmarshal(line, &l); err != nil {
			return fmt.Errorf("the answer to the pull of %s is not Ollama's progress stream (%q): is the server at that address Ollama?", model, truncate(string(line), 120))
		}
		if l.Error != "" {
			return pullError(model, l.Error)
		}
		if l.Digest != "" {
			b := blobs[l.Digest]
			if b == nil {
				b = &blob{}
				blobs[l.Digest] = b
				order = append(order, l.Digest)
			}
			if l.Total > 0 {
				b.total = l.Total
			}
			if l.Completed > b.done {
				b.done = l.Completed
			}
		}
		p := PullProgress{Model: model, Status: l.Status}
		for _, d := range order {
			p.Done += blobs[d].done
			p.Total += blobs[d].total
		}
		if p.Total > 0 {
			p.Percent = 100 * float64(p.Done) / float64(p.Total)
		}
		p.Text = pullText(p)
		if progress != nil {
			progress(p)
		}
		if l.Status == "success" {
			return nil
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %s (Ollama keeps what it downloaded and goes on from there next time)", ErrPullCancelled, model)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("the pull of %s stopped: %v (pull it again: Ollama goes on from where it stopped)", model, err)
	}
	return fmt.Errorf("the Ollama server ended the pull of %s before saying it succeeded (pull it again: Ollama goes on from where it stopped)", model)
}

// pullText says where a pull is in the user's words.
func pullText(p PullProgress) string {
	if p.Total > 0 && strings.HasPrefix(p.Status, "pulling ") && p.Status != "pulling manifest" {
		return fmt.Sprintf("%s: %s of %s (%.0f%%)", p.Status, gibText(p.Done), gibText(p.Total), p.Percent)
	}
	return p.Status
}

// gibText writes bytes in GiB with one decimal (0.1 GiB and up), else as
// bytesize writes them.
func gibText(n int64) string {
	if n >= 1<<30/10 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return bytesize.Format(n)
}

// pullError words Ollama's error with what to do.
func pullError(model, msg string) error {
	hint := "check the name (`rehome models` lists the catalog's Ollama tags) and the network"
	switch {
	case strings.Contains(msg, "file does not exist"), strings.Contains(msg, "not found"):
		hint = "Ollama's library has no model by that name: check the tag (`rehome models` lists the catalog's)"
	case strings.Contains(msg, "no space left"):
		hint = "free disk space where Ollama keeps its models (OLLAMA_MODELS, ~/.ollama/models), then pull again"
	case strings.Contains(msg, "dial tcp"), strings.Contains(msg, "lookup "), strings.Contains(msg, "timeout"):
		hint = "this machine cannot reach Ollama's library: carry the .gguf file instead and add it with `rehome models add FILE`"
	}
	return fmt.Errorf("the Ollama server could not pull %s: %s (%s)", model, truncate(msg, 400), hint)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
