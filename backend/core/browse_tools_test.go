package core

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"rehome/backend/llm"
)

// toolsOf are the browsing tools AddTools gives an ask (forced on).
func toolsOf(t *testing.T, c *Core) (search, open llm.LoopTool) {
	t.Helper()
	tools, _, err := c.Browse().AddTools(nil, nil, "", true)
	if err != nil || len(tools) != 2 || tools[0].Name != "web_search" || tools[1].Name != "open_url" {
		t.Fatalf("tools %+v %v", tools, err)
	}
	return tools[0], tools[1]
}

// Online: web_search takes turns between the carried library and a
// SearXNG-shaped engine (answering SearXNG's documented JSON) whose
// results point at a stand-in web on 127.0.0.1 (the LAN allowed);
// open_url reads one of its pages in the sandbox; numbers run on from
// FirstCitation. Air-gapped, the engine is not asked (the model is told)
// and web pages are not opened; the library still answers.
func TestBrowseToolsOnline(t *testing.T) {
	needPodmanCore(t)
	asked := 0
	var web *httptest.Server
	web = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/search":
			asked++
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"query": r.URL.Query().Get("q"), "number_of_results": 0,
				"results": []map[string]any{{"url": web.URL + "/json-guide", "title": "A guide to JSON in Python", "content": "How json.loads works.",
					"engine": "duckduckgo", "engines": []string{"duckduckgo"}, "parsed_url": []string{"http", "127.0.0.1", "/json-guide", "", "", ""},
					"template": "default.html", "positions": []int{1}, "score": 1.0, "category": "general"}},
				"answers": []any{}, "corrections": []any{}, "infoboxes": []any{}, "suggestions": []any{}, "unresponsive_engines": []any{}})
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case "/json-guide":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><head><title>A guide to JSON in Python</title></head><body><h1>JSON</h1><p>json.loads turns text into objects.</p></body></html>")
		}
	}))
	defer web.Close()
	c := openCore(t, t.TempDir(), Options{})
	withLibrary(t, c)
	lan, searx := true, web.URL
	if _, err := c.Browse().SaveSettings(BrowsingChange{AllowLAN: &lan, SearXNG: &searx}); err != nil {
		t.Fatal(err)
	}
	search, open := toolsOf(t, c)
	if !strings.Contains(search.Description, "the web") || !strings.Contains(search.Description, "Python 3.11 docs (test)") {
		t.Fatalf("description %q", search.Description)
	}
	out := search.Call(t.Context(), llm.ToolInput{Arguments: `{"query": "json decoder"}`, FirstCitation: 3})
	if out.Error != "" || len(out.Citations) < 2 || out.Citations[0].N != 3 || out.Citations[0].URL != "zim://py/library/json.html" ||
		out.Citations[1].URL != web.URL+"/json-guide" || asked != 1 {
		t.Fatalf("search: %q %+v (asked %d)", out.Text, out.Citations, asked)
	}
	page := open.Call(t.Context(), llm.ToolInput{Arguments: `{"url": "` + web.URL + `/json-guide"}`, FirstCitation: 9})
	// The page was the search's second hit: it keeps that number.
	if page.Error != "" || len(page.Citations) != 1 || page.Citations[0].N != out.Citations[1].N || !strings.Contains(page.Text, "json.loads turns text into objects") ||
		page.Citations[0].Title != "A guide to JSON in Python" {
		t.Fatalf("open: %q %+v", page.Text, page.Citations)
	}
	if bad := open.Call(t.Context(), llm.ToolInput{Arguments: `{"url": "file:///etc/passwd"}`}); bad.Error == "" || !strings.Contains(bad.Text, "only http and https") {
		t.Fatalf("file: %q", bad.Text)
	}

	gapped := true
	if _, err := c.Browse().SaveSettings(BrowsingChange{AirGapped: &gapped}); err != nil {
		t.Fatal(err)
	}
	search, open = toolsOf(t, c)
	if strings.Contains(search.Description, "the web") || !strings.Contains(search.Prompt, "air-gapped: the web is off") {
		t.Fatalf("air-gapped description %q", search.Description)
	}
	out = search.Call(t.Context(), llm.ToolInput{Arguments: `{"query": "json decoder"}`, FirstCitation: 1})
	if out.Error != "" || asked != 1 || len(out.Citations) == 0 || strings.HasPrefix(out.Citations[0].URL, "http") {
		t.Fatalf("air-gapped search: %q %+v (asked %d)", out.Text, out.Citations, asked)
	}
	if page := open.Call(t.Context(), llm.ToolInput{Arguments: `{"url": "` + web.URL + `/json-guide"}`}); !strings.Contains(page.Text, "air-gapped") {
		t.Fatalf("air-gapped open: %q", page.Text)
	}
}

// A model without tool calling gets the search's hits for the question
// and the top hit's text up front, the page under the hit's number.
func TestBrowseUpFront(t *testing.T) {
	needPodmanCore(t)
	c := openCore(t, t.TempDir(), Options{})
	withLibrary(t, c)
	search, _ := toolsOf(t, c)
	out := search.UpFront(t.Context(), llm.ToolInput{Question: "json decoder", FirstCitation: 1, BudgetTokens: 4000})
	n := len(out.Citations)
	if n < 2 || out.Citations[0].URL != "zim://py/library/json.html" || out.Citations[n-1].N != 1 || out.Citations[n-1].URL != out.Citations[0].URL ||
		!strings.Contains(out.Text, "JSONDecoder") {
		t.Fatalf("up front: %.400q %+v", out.Text, out.Citations)
	}
}
