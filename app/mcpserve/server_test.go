package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"rehome/backend/assistant"
	"rehome/backend/core"
	"rehome/backend/knowledge"
)

const key = "sk-mcp-canary-51c0ffee"

// api is a real HTTP API on 127.0.0.1 that wants the bearer key and logs
// what it was asked.
type api struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func newAPI(t testing.TB) *api {
	a := &api{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.hits = append(a.hits, r.Method+" "+r.URL.Path)
		a.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, `{"error": "no key"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/api/orders/"):
			fmt.Fprintf(w, `{"id": %q, "total": 12.5}`, strings.TrimPrefix(r.URL.Path, "/api/orders/"))
		case r.Method == "POST" && r.URL.Path == "/api/orders":
			w.WriteHeader(201)
			fmt.Fprint(w, `{"id": "o-43", "total": 3}`)
		default:
			http.Error(w, "{}", 404)
		}
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *api) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string{}, a.hits...)
}

// fixture is a data folder with one assistant that has a knowledge file
// and the shop action (a real API on 127.0.0.1).
func fixture(t testing.TB) (*core.Core, assistant.Assistant, *api) {
	t.Helper()
	dir := t.TempDir()
	c := core.New(dir, core.Options{})
	if err := c.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Shop helper", Description: "Answers about orders.",
		Instructions: "Help with orders; quote the returns policy.", Starters: []string{"Where is my order?"}})
	if err != nil {
		t.Fatal(err)
	}
	srv := newAPI(t)
	schema, err := os.ReadFile("../../backend/actions/testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Actions().Add(a.ID, core.AddAction{Schema: strings.ReplaceAll(string(schema), "SERVER", srv.URL), Auth: "bearer", Key: key, AllowLocal: true}); err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(t.TempDir(), "returns.md")
	os.WriteFile(doc, []byte("# Returns\n\nItems may be returned within 30 days of delivery with the receipt. Refunds go to the original card within five working days.\n\n# Shipping\n\nParcels leave the warehouse on weekdays.\n"), 0o600)
	res, err := c.Knowledge().Add(t.Context(), a.ID, []string{doc}, nil)
	if err != nil || len(res) != 1 || res[0].State != knowledge.StateIndexed {
		t.Fatalf("knowledge add: %+v %v", res, err)
	}
	return c, a, srv
}

// connect is the Go SDK's own client on srv, in memory.
func connect(t *testing.T, s *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text + "\n")
		}
	}
	return b.String()
}

// The tools an MCP client lists are the assistant's own — file_search,
// each action, python — with annotations by ChatGPT's rule.
func TestServeToolsAndAnnotations(t *testing.T) {
	c, a, _ := fixture(t)
	s, err := New(Options{MCP: c.MCP(), Assistants: []string{"Shop helper"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s, nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		got[tl.Name] = tl
	}
	for _, want := range []string{"file_search", "getOrder", "placeOrder", "noteOrder", "python", "upload_file"} {
		if got[want] == nil {
			t.Fatalf("tool %s missing; have %v", want, keys(got))
		}
	}
	ann := func(n string) mcp.ToolAnnotations { return *got[n].Annotations }
	if g := ann("getOrder"); !g.ReadOnlyHint || *g.DestructiveHint || !*g.OpenWorldHint {
		t.Fatalf("getOrder (a GET, no confirmation) %+v", g)
	}
	if p := ann("placeOrder"); p.ReadOnlyHint || !*p.DestructiveHint {
		t.Fatalf("placeOrder (consequential) %+v", p)
	}
	if n := ann("noteOrder"); n.ReadOnlyHint || *n.DestructiveHint {
		t.Fatalf("noteOrder (x-openai-isConsequential: false) %+v", n)
	}
	if f := ann("file_search"); !f.ReadOnlyHint {
		t.Fatalf("file_search %+v", f)
	}
	// The prompt carries the instructions and starters.
	pr, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "assistant", Arguments: map[string]string{"question": "Can I return it?"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pr.Messages[0].Content.(*mcp.TextContent).Text, "quote the returns policy") || !strings.Contains(pr.Description, "Where is my order?") || len(pr.Messages) != 2 {
		t.Fatalf("prompt %+v", pr)
	}
	// The knowledge file is a resource, read from rehome's own copy.
	rs, err := cs.ListResources(t.Context(), nil)
	if err != nil || len(rs.Resources) != 1 || rs.Resources[0].URI != "rehome://knowledge/"+a.ID+"/returns.md" {
		t.Fatalf("resources %+v %v", rs, err)
	}
	rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: rs.Resources[0].URI})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "within 30 days") {
		t.Fatalf("read %+v %v", rr, err)
	}
	// A URI of a file that is not its knowledge is not found.
	if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "rehome://knowledge/" + a.ID + "/..%2F..%2Frehome.db"}); err == nil {
		t.Fatal("a resource outside the knowledge was read")
	}
}

func keys(m map[string]*mcp.Tool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// file_search answers with the passage and its source as a resource
// link; a GET action is made with the key; a consequential POST is not
// made for a client that cannot ask the user, and is made once for one
// whose user allows it (elicitation).
func TestServeCalls(t *testing.T) {
	c, a, srv := fixture(t)
	s, err := New(Options{MCP: c.MCP(), Assistants: []string{a.ID}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s, nil)
	r, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "file_search", Arguments: map[string]any{"query": "how long to return items"}})
	if err != nil || r.IsError || !strings.Contains(text(r), "30 days") {
		t.Fatalf("file_search %+v %v", r, err)
	}
	var link *mcp.ResourceLink
	for _, ct := range r.Content {
		if l, ok := ct.(*mcp.ResourceLink); ok {
			link = l
		}
	}
	if link == nil || link.URI != "rehome://knowledge/"+a.ID+"/returns.md" || !strings.HasPrefix(link.Title, "[1] returns.md") {
		t.Fatalf("citation link %+v", link)
	}
	r, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "getOrder", Arguments: map[string]any{"id": "o-42"}})
	if err != nil || r.IsError || !strings.Contains(text(r), `"total": 12.5`) {
		t.Fatalf("getOrder %+v %v", r, err)
	}
	r, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "placeOrder", Arguments: map[string]any{"sku": "A1"}})
	if err != nil || !r.IsError || !strings.Contains(text(r), "cannot ask you") {
		t.Fatalf("placeOrder without elicitation %+v %v", text(r), err)
	}
	for _, h := range srv.seen() {
		if strings.HasPrefix(h, "POST") {
			t.Fatalf("a POST nobody confirmed was sent: %v", srv.seen())
		}
	}
	// A client that asks its user: deny makes nothing, allow makes one.
	answer := "deny"
	var asked []string
	cs2 := connect(t, s, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": answer}}, nil
	}})
	r, _ = cs2.CallTool(t.Context(), &mcp.CallToolParams{Name: "placeOrder", Arguments: map[string]any{"sku": "A1"}})
	if !r.IsError || countPosts(srv.seen()) != 0 {
		t.Fatalf("denied: %s %v", text(r), srv.seen())
	}
	answer = "allow"
	r, _ = cs2.CallTool(t.Context(), &mcp.CallToolParams{Name: "placeOrder", Arguments: map[string]any{"sku": "A1"}})
	if r.IsError || countPosts(srv.seen()) != 1 {
		t.Fatalf("allowed: %s %v", text(r), srv.seen())
	}
	if len(asked) != 2 || !strings.Contains(asked[0], "placeOrder") || !strings.Contains(asked[0], "A1") {
		t.Fatalf("asked %q", asked)
	}
	// The key never reaches the client.
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), key) {
		t.Fatal("the action's key reached the MCP client")
	}
}

func countPosts(hits []string) int {
	n := 0
	for _, h := range hits {
		if strings.HasPrefix(h, "POST") {
			n++
		}
	}
	return n
}

// Several assistants: each one's tools are named apart, none dropped.
func TestServeSeveralAssistants(t *testing.T) {
	c, _, _ := fixture(t)
	if _, err := c.Assistants().Create(assistant.Assistant{Name: "Data Analyst"}); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{MCP: c.MCP(), Assistants: []string{"Shop helper", "Data Analyst"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := connect(t, s, nil).ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	all := strings.Join(names, " ")
	for _, want := range []string{"shop_helper_getOrder", "shop_helper_file_search", "shop_helper_python", "data_analyst_python"} {
		if !strings.Contains(all, want) {
			t.Fatalf("%s missing from %s", want, all)
		}
	}
	if _, err := New(Options{MCP: c.MCP()}); err == nil {
		t.Fatal("no assistant served without a word")
	}
	if _, err := New(Options{MCP: c.MCP(), Assistants: []string{"nobody-like-this"}}); err == nil {
		t.Fatal("an unknown assistant was served")
	}
}
