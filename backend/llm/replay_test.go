package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// replay is a loopback HTTP server that answers successive chat
// completions with the recorded responses of one scenario folder under
// testdata/, byte for byte, and keeps the requests it got.
type replay struct {
	*httptest.Server
	t     *testing.T
	files []string
	mu    sync.Mutex
	n     int
	reqs  []ChatRequest
	// bodies are the requests as sent.
	bodies []string
	// extra serves other paths (discovery fixtures), path → file.
	extra map[string]string
}

func newReplay(t *testing.T, scenario string) *replay {
	t.Helper()
	r := &replay{t: t, extra: map[string]string{}}
	if scenario != "" {
		fs, err := filepath.Glob(filepath.Join("testdata", scenario, "[0-9][0-9]*"))
		if err != nil || len(fs) == 0 {
			t.Fatalf("no transcript in testdata/%s", scenario)
		}
		sort.Strings(fs)
		r.files = fs
	}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *replay) base() string { return r.URL + "/v1" }

func (r *replay) requests() []ChatRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ChatRequest{}, r.reqs...)
}

func (r *replay) serve(w http.ResponseWriter, req *http.Request) {
	if f, ok := r.extra[req.Method+" "+req.URL.Path]; ok {
		data, err := os.ReadFile(f)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		if strings.HasSuffix(f, ".json") {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
		}
		w.Write(data)
		return
	}
	if req.URL.Path != "/v1/chat/completions" || req.Method != http.MethodPost {
		http.NotFound(w, req)
		return
	}
	body, _ := io.ReadAll(req.Body)
	var cr ChatRequest
	if err := json.Unmarshal(body, &cr); err != nil {
		r.t.Errorf("the client sent a request that is not JSON: %v", err)
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, cr)
	r.bodies = append(r.bodies, string(body))
	i := r.n
	r.n++
	r.mu.Unlock()
	if i >= len(r.files) {
		r.t.Errorf("the client asked %d times; the transcript has %d answers", i+1, len(r.files))
		http.Error(w, `{"error":{"message":"no more recorded answers"}}`, 500)
		return
	}
	f := r.files[i]
	data, err := os.ReadFile(f)
	if err != nil {
		r.t.Fatal(err)
	}
	name := filepath.Base(f)
	status := 200
	if parts := strings.SplitN(strings.TrimSuffix(name, filepath.Ext(name)), "-", 2); len(parts) == 2 {
		status, _ = strconv.Atoi(parts[1])
	}
	if strings.HasSuffix(name, ".json") {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		w.Write(data)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	fl := w.(http.Flusher)
	text := string(data)
	drop := strings.HasSuffix(text, "#DROP\n")
	text = strings.TrimSuffix(text, "#DROP\n")
	// one event at a time, flushed, as a server generating tokens does
	for _, ev := range strings.SplitAfter(text, "\n\n") {
		io.WriteString(w, ev)
		fl.Flush()
	}
	if drop {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
		}
	}
}

// fakeExec records the code and answers with a fixed result.
type fakeExec struct {
	mu    sync.Mutex
	codes []string
	res   CellResult
}

func (f *fakeExec) Exec(_ context.Context, code string) (CellResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.codes = append(f.codes, code)
	r := f.res
	r.RunID = fmt.Sprint(len(f.codes))
	return r, nil
}

// showMux answers Ollama's POST /api/show from the fixture named by the
// model's family, and everything else as r does.
func showMux(r *replay, dir string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/api/show" && req.Method == http.MethodPost {
			var q struct {
				Model string `json:"model"`
			}
			json.NewDecoder(req.Body).Decode(&q)
			name := strings.SplitN(q.Model, ":", 2)[0]
			data, err := os.ReadFile(filepath.Join(dir, "ollama-show-"+name+".json"))
			if err != nil {
				http.Error(w, `{"error":"model '`+q.Model+`' not found"}`, 404)
				return
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Write(data)
			return
		}
		r.serve(w, req)
	})
}

func port(u string) int {
	i := strings.LastIndex(u, ":")
	p, _ := strconv.Atoi(u[i+1:])
	return p
}
