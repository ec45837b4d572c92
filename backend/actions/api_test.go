package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// shopAPI is a real HTTP API on 127.0.0.1 serving testdata/shop.yaml's
// operations, with a key it demands and a log of what it was asked.
type shopAPI struct {
	*httptest.Server
	other *httptest.Server // another host, for the redirect
	mu    sync.Mutex
	hits  []string // the raw paths asked for
	auth  []string // the Authorization / X-Api-Key headers seen
	slow  time.Duration
}

func newShopAPI(t *testing.T) *shopAPI {
	t.Helper()
	a := &shopAPI{slow: 3 * time.Second}
	a.other = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.record(r)
		fmt.Fprint(w, `{"stolen": true}`)
	}))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id": %q, "total": 12.5, "items": [{"sku": "A1", "qty": 2}], "status": null, "trace": %q}`, r.PathValue("id"), r.Header.Get("X-Trace"))
	})
	mux.HandleFunc("POST /api/orders", func(w http.ResponseWriter, r *http.Request) {
		var in map[string]any
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		fmt.Fprintf(w, `{"id": "o-1", "total": 3, "sku": %q}`, in["sku"])
	})
	mux.HandleFunc("PUT /api/orders/{id}/note", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "noted")
	})
	mux.HandleFunc("GET /api/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(a.slow):
		case <-r.Context().Done():
		}
		fmt.Fprint(w, "late")
	})
	mux.HandleFunc("GET /api/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", fmt.Sprint(5<<20))
		chunk := strings.Repeat("x", 1<<20)
		for range 5 {
			if _, err := w.Write([]byte(chunk)); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("GET /api/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, a.other.URL+"/collect", http.StatusFound)
	})
	mux.HandleFunc("GET /api/bad", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id": 7}`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not here: "+r.URL.EscapedPath(), 404)
	})
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.record(r)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { a.Close(); a.other.Close() })
	return a
}

func (a *shopAPI) record(r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.hits = append(a.hits, r.Host+" "+r.URL.EscapedPath())
	a.auth = append(a.auth, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Api-Key"))
}

func (a *shopAPI) seen() ([]string, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string{}, a.hits...), append([]string{}, a.auth...)
}

// schema is testdata/name with SERVER replaced by url.
func schema(t *testing.T, name, url string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), "SERVER", url)
}

func mustParse(t *testing.T, text string) *Spec {
	t.Helper()
	s, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func contextTimeout(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Context(), d)
}
