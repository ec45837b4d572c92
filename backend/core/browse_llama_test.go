package core

import (
	"os"
	"slices"
	"strings"
	"testing"

	"rehome/backend/assistant"
	"rehome/backend/llm"
	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/llmtest"
	"rehome/internal/testsupport/tinymodel"
)

// browsingAssistant is a GPT with web browsing on and a carried library.
func browsingAssistant(t *testing.T, c *Core) assistant.Assistant {
	t.Helper()
	withLibrary(t, c)
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Python helper", Instructions: "Answer from the Python docs.",
		Capabilities: []assistant.Capability{assistant.WebBrowsing}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// checkBrowsed checks a browsing answer: web_search found the json page
// first in the real ZIM through the real kiwix-serve, open_url read it in
// the sandbox and cited it under the hit's number, and the answer's [1]
// is the page, its [2] the second hit.
func checkBrowsed(t *testing.T, tr *llm.Transcript) {
	t.Helper()
	u := uses(tr)
	if len(u) != 2 || u[0].Name != "web_search" || u[1].Name != "open_url" {
		t.Fatalf("uses %+v", u)
	}
	if len(u[0].Citations) < 2 || u[0].Citations[0].URL != "zim://py/library/json.html" || !strings.Contains(u[0].Fed, "[1] json — JSON encoder and decoder") {
		t.Fatalf("the search fed %q with %+v", u[0].Fed, u[0].Citations)
	}
	second := u[0].Citations[1]
	if len(u[1].Citations) != 1 || u[1].Citations[0].N != 1 || !strings.Contains(u[1].Fed, "JSONDecoder") || !strings.Contains(u[1].Fed, "zim://py/library/json.html") || strings.Contains(u[1].Fed, "<div") {
		t.Fatalf("the page fed %.300q with %+v", u[1].Fed, u[1].Citations)
	}
	if len(tr.Citations) != 2 || tr.Citations[0].N != 1 || tr.Citations[0].URL != "zim://py/library/json.html" || !strings.Contains(tr.Citations[0].Quote, "JSONDecoder") ||
		tr.Citations[1].N != 2 || tr.Citations[1].URL != second.URL || !strings.HasPrefix(second.URL, "zim://py/") || second.URL == tr.Citations[0].URL {
		t.Fatalf("citations %+v", tr.Citations)
	}
	if md := llm.SourcesMarkdown(tr.Citations); !strings.Contains(md, "[1] json — JSON encoder and decoder") || !strings.Contains(md, "— zim://py/library/json.html") {
		t.Fatalf("sources %q", md)
	}
}

// A browsing GPT answers from a carried library with a cited article:
// llama.cpp's llama-server serving the tiny model taught to call
// web_search, then open_url, then answer citing [1] and [2], asked through core.Asks.
// REHOME_RECORD=1 writes the wire as backend/llm/testdata/browse-tools,
// which TestBrowseRecordedWire replays.
func TestBrowseRealModel(t *testing.T) {
	needPodmanCore(t)
	script := tinymodel.BrowseScript()
	srv := llamatest.Start(t, script)
	c := openCore(t, t.TempDir(), Options{})
	a := browsingAssistant(t, c)
	tap := newWireTap(t, srv.Root)
	tr := askReal(t, c, a.ID, tap.URL+"/v1", "What decodes JSON in Python?", strings.Join(script.Answer, ""), nil)
	checkBrowsed(t, tr)
	bodies, answers := tap.take()
	if len(bodies) != 3 || !strings.Contains(bodies[0], `"name":"web_search"`) || !strings.Contains(bodies[0], `"name":"open_url"`) {
		t.Fatalf("%d model requests; the tools offered: %v", len(bodies), len(bodies) > 0 && strings.Contains(bodies[0], "web_search"))
	}
	if os.Getenv("REHOME_RECORD") != "" {
		record(t, "browse-tools", answers)
	}
	if _, err := os.Stat("../llm/testdata/browse-tools/03.sse"); err != nil {
		t.Fatal("the real model browsed and cited as it should, but backend/llm/testdata/browse-tools is not recorded yet: run this test with REHOME_RECORD=1 and commit the folder")
	}
	sameWire(t, "browse-tools", answers)
}

// The recorded wire of TestBrowseRealModel, replayed: the same tools run
// for real (kiwix-serve, the sandbox), the conversation keeps the
// citations, and its Markdown export lists the zim:// sources. Then the
// same question with browsing neither on for the assistant nor asked
// for offers no browsing tool.
func TestBrowseRecordedWire(t *testing.T) {
	needPodmanCore(t)
	needBrowseWire(t, "../llm/testdata")
	rec := llmtest.Replay(t, "../llm/testdata", "browse-tools")
	c := openCore(t, t.TempDir(), Options{})
	a := browsingAssistant(t, c)
	q, err := c.Asks().Prepare(t.Context(), AskRequest{AssistantID: a.ID, Server: rec.Base(), Model: "qwen2.5:7b", Question: "What decodes JSON in Python?"})
	if err != nil {
		t.Fatal(err)
	}
	tr := q.Run(t.Context(), nil)
	if tr.Answer != strings.Join(tinymodel.BrowseScript().Answer, "") {
		t.Fatalf("stopped %s (%s), answer %q", tr.Stopped, tr.Error, tr.Answer)
	}
	checkBrowsed(t, tr)
	if err := q.Keep(); err != nil {
		t.Fatal(err)
	}
	conv, err := llm.GetConversation(c.Store(), q.Conversation.ID)
	if err != nil {
		t.Fatal(err)
	}
	last := conv.Exchanges[len(conv.Exchanges)-1]
	if !slices.ContainsFunc(last.Citations, func(x llm.Citation) bool { return x.URL == "zim://py/library/json.html" && x.N == 1 }) {
		t.Fatalf("the kept conversation lost the citations: %+v", last.Citations)
	}
	if md := conv.Markdown(); !strings.Contains(md, "zim://py/library/json.html") || !strings.Contains(md, "[2]") {
		t.Fatalf("the export lost the sources: %s", md)
	}
	if !strings.Contains(rec.Bodies()[0], `"name":"web_search"`) {
		t.Fatal("web_search was not offered")
	}
	plain, err := c.Assistants().Create(assistant.Assistant{Name: "No browsing"})
	if err != nil {
		t.Fatal(err)
	}
	q, err = c.Asks().Prepare(t.Context(), AskRequest{AssistantID: plain.ID, Server: rec.Base(), Model: "qwen2.5:7b", Question: "x"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range q.loop.Tools {
		if tool.Name == "web_search" || tool.Name == "open_url" {
			t.Fatal("browsing tools offered to an assistant without browsing")
		}
	}
	q.conn.Release()
}

// needBrowseWire skips, saying how to make it, when the recorded wire of
// TestBrowseRealModel is not there.
func needBrowseWire(t *testing.T, testdata string) {
	t.Helper()
	if _, err := os.Stat(testdata + "/browse-tools/03.sse"); err != nil {
		t.Skip("skipped: the recorded wire backend/llm/testdata/browse-tools is missing: record it with REHOME_RECORD=1 go test -run TestBrowseRealModel ./backend/core (needs llama-server: build/llm/llama-server.sh)")
	}
}
