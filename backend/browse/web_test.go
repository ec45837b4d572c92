package browse

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// A SearXNG-shaped server answering with SearXNG's documented JSON: the
// results come back as hits (a javascript: one dropped, control and
// bidi characters out of snippets), the unresponsive engine as a note;
// an instance with the JSON format off (403) and one that answers HTML
// are said in words.
func TestSearXNG(t *testing.T) {
	answer, err := os.ReadFile("testdata/searxng-python-json.json")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.Path+"?"+r.URL.RawQuery)
		switch r.URL.Query().Get("q") {
		case "off":
			http.Error(w, "Forbidden", http.StatusForbidden)
		case "html":
			w.Write([]byte("<html>SearXNG</html>"))
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Write(answer)
		}
	}))
	defer srv.Close()
	hits, notes, err := SearchSearXNG(t.Context(), srv.Client(), srv.URL+"/", "python json decoder", 5)
	if err != nil || len(hits) != 2 {
		t.Fatalf("%+v %v", hits, err)
	}
	if hits[0].URL != "https://docs.python.org/3/library/json.html" || !strings.Contains(hits[0].Title, "JSON encoder and decoder") || hits[0].Source != "SearXNG (duckduckgo)" {
		t.Fatalf("hit %+v", hits[0])
	}
	if strings.ContainsRune(hits[1].Snippet, '\u202e') {
		t.Fatalf("a bidi override passed: %q", hits[1].Snippet)
	}
	if len(notes) != 1 || notes[0] != "SearXNG's google: CAPTCHA" {
		t.Fatalf("notes %v", notes)
	}
	if got[0] != "/search?format=json&q=python+json+decoder" {
		t.Fatalf("asked %v", got)
	}
	if _, _, err := SearchSearXNG(t.Context(), srv.Client(), srv.URL, "off", 5); !errors.Is(err, ErrEngine) || !strings.Contains(err.Error(), "search.formats") {
		t.Fatalf("403: %v", err)
	}
	if _, _, err := SearchSearXNG(t.Context(), srv.Client(), srv.URL, "html", 5); !errors.Is(err, ErrEngine) || !strings.Contains(err.Error(), "is "+srv.URL+" a SearXNG") {
		t.Fatalf("HTML: %v", err)
	}
	if _, _, err := SearchSearXNG(t.Context(), srv.Client(), "ftp://x", "q", 5); !errors.Is(err, ErrEngine) {
		t.Fatalf("a bad address: %v", err)
	}
}

// Brave Search's API shape: the key travels in X-Subscription-Token,
// a refused key is said.
func TestBrave(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Subscription-Token") != "brave-key" {
			http.Error(w, `{"type":"ErrorResponse"}`, http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"type":"search","query":{"original":"json"},"web":{"type":"search","results":[{"title":"json — JSON encoder and decoder","url":"https://docs.python.org/3/library/json.html","description":"Source code: <strong>Lib/json</strong>","language":"en"}]}}`))
	}))
	defer srv.Close()
	hits, err := SearchBrave(t.Context(), srv.Client(), srv.URL, "brave-key", "json", 5)
	if err != nil || len(hits) != 1 || hits[0].URL != "https://docs.python.org/3/library/json.html" || hits[0].Source != "Brave Search" {
		t.Fatalf("%+v %v", hits, err)
	}
	if _, err := SearchBrave(t.Context(), srv.Client(), srv.URL, "wrong", "json", 5); !errors.Is(err, ErrEngine) || !strings.Contains(err.Error(), "refused the API key") {
		t.Fatalf("a wrong key: %v", err)
	}
}
