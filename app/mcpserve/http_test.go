package mcpserve

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// Streamable HTTP on loopback: the token is needed, a page of another
// site (Origin) and another Host are refused, a body over MaxMessage is
// cut; with the token the Go SDK's client lists and calls the tools.
func TestServeHTTPGuards(t *testing.T) {
	c, a, _ := fixture(t)
	s, err := New(Options{MCP: c.MCP(), Assistants: []string{a.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Listen("0.0.0.0:0"); err == nil {
		t.Fatal("listened beyond loopback")
	}
	if _, err := Listen("192.0.2.1:0"); err == nil {
		t.Fatal("listened on another address")
	}
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.ServeHTTP(ctx, l, "tok-123") }()
	t.Cleanup(func() { cancel(); <-done })
	url := "http://" + l.Addr().String() + "/mcp"
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	post := func(h map[string]string, body string) int {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range h {
			if k == "Host" {
				req.Host = v
				continue
			}
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := post(nil, init); code != 401 {
		t.Fatalf("no token: %d", code)
	}
	if code := post(map[string]string{"Authorization": "Bearer wrong"}, init); code != 401 {
		t.Fatalf("wrong token: %d", code)
	}
	if code := post(map[string]string{"Authorization": "Bearer tok-123", "Origin": "https://evil.example"}, init); code != 403 {
		t.Fatalf("another site's page: %d", code)
	}
	if code := post(map[string]string{"Authorization": "Bearer tok-123", "Host": "rebind.example:80"}, init); code != 403 {
		t.Fatalf("another Host: %d", code)
	}
	if code := post(map[string]string{"Authorization": "Bearer tok-123"}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"`+strings.Repeat("A", MaxMessage)+`"}}`); code < 400 {
		t.Fatalf("a body over the bound: %d", code)
	}
	hc := &http.Client{Transport: bearer{"tok-123", http.DefaultTransport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	r, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "file_search", Arguments: map[string]any{"query": "refund card"}})
	if err != nil || !strings.Contains(text(r), "five working days") {
		t.Fatalf("file_search over HTTP: %+v %v", r, err)
	}
}
