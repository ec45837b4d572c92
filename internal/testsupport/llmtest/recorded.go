package llmtest

import (
	"encoding/json"
	"io"
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

// Recorded is a loopback server that looks like Ollama — its root,
// /v1/models and /api/show, from testdata/discovery — and answers chat
// completions with the recorded answers of its scenarios, byte for byte,
// one after another. An answer file NN-STATUS.json is sent as JSON with
// that HTTP status; any other as a stream, one event at a time. Asked
// more often than it has answers, it says so with a 500.
type Recorded struct {
	*httptest.Server
	testdata string
	files    []string

	mu     sync.Mutex
	n      int
	bodies []string
}

// Replay starts a Recorded server over the scenario folders of testdata
// (the path of backend/llm/testdata from the test's package), in order,
// and stops it when the test ends. A scenario without answers fails the
// test.
func Replay(t testing.TB, testdata string, scenarios ...string) *Recorded {
	t.Helper()
	r := &Recorded{testdata: testdata}
	for _, sc := range scenarios {
		fs, _ := filepath.Glob(filepath.Join(testdata, sc, "[0-9][0-9]*"))
		if len(fs) == 0 {
			t.Fatalf("no transcript %s in %s", sc, testdata)
		}
		sort.Strings(fs)
		r.files = append(r.files, fs...)
	}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

// Base is the base URL an OpenAI client takes.
func (r *Recorded) Base() string { return r.URL + "/v1" }

// Bodies are the chat completion requests' bodies, as sent, in order.
func (r *Recorded) Bodies() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies...)
}

func (r *Recorded) serve(w http.ResponseWriter, req *http.Request) {
	disc := func(name string) {
		data, err := os.ReadFile(filepath.Join(r.testdata, "discovery", name))
		if err != nil {
			http.NotFound(w, req)
			return
		}
		w.Write(data)
	}
	switch req.URL.Path {
	case "/":
		disc("ollama-root.txt")
	case "/v1/models":
		disc("ollama-models.json")
	case "/api/show":
		var q struct{ Model string }
		json.NewDecoder(req.Body).Decode(&q)
		disc("ollama-show-" + strings.SplitN(q.Model, ":", 2)[0] + ".json")
	case "/v1/chat/completions":
		r.answer(w, req)
	default:
		http.NotFound(w, req)
	}
}

func (r *Recorded) answer(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	i := r.n
	r.n++
	r.bodies = append(r.bodies, string(body))
	r.mu.Unlock()
	if i >= len(r.files) {
		http.Error(w, `{"error":{"message":"no more recorded answers"}}`, http.StatusInternalServerError)
		return
	}
	data, err := os.ReadFile(r.files[i])
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if name := filepath.Base(r.files[i]); strings.HasSuffix(name, ".json") {
		status := http.StatusOK
		if _, s, ok := strings.Cut(strings.TrimSuffix(name, ".json"), "-"); ok {
			if n, err := strconv.Atoi(s); err == nil {
				status = n
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(data)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, ev := range strings.SplitAfter(string(data), "\n\n") {
		io.WriteString(w, ev)
		w.(http.Flusher).Flush()
	}
}
