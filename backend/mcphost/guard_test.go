package mcphost

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"rehome/internal/testsupport/dnstest"
)

// sumServer is a real MCP server (the SDK's) over Streamable HTTP on
// 127.0.0.1, with one tool, sum.
func sumServer(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "sum", Version: "1"}, nil)
	type in struct{ A, B int }
	mcp.AddTool(s, &mcp.Tool{Name: "sum", Description: "adds"}, func(_ context.Context, _ *mcp.CallToolRequest, x in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(x.A + x.B)}}}, nil, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

// shortLimits bound the connect so a guard that let a dial through to
// an address nothing answers on fails the test rather than hanging.
func shortLimits(airGapped bool, res *net.Resolver) Limits {
	lim := DefaultLimits
	lim.Connect, lim.AirGapped, lim.Resolver = 5*time.Second, airGapped, res
	return lim
}

func mustRefuse(t *testing.T, url string, lim Limits, words ...string) {
	t.Helper()
	start := time.Now()
	_, err := Connect(t.Context(), Server{Name: "far", URL: url}, "", lim)
	if err == nil {
		t.Fatalf("%s: connected", url)
	}
	for _, w := range append([]string{"the call was refused"}, words...) {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: the refusal does not say %q: %v", url, w, err)
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("%s: refused after %s, not at the dial", url, d)
	}
}

// A cloud's metadata service and a link-local address are refused at
// the dial, in words that say why, air-gapped or not.
func TestHTTPMetadataRefused(t *testing.T) {
	for _, gapped := range []bool{false, true} {
		mustRefuse(t, "http://169.254.169.254/mcp", shortLimits(gapped, nil), "169.254.169.254:80", "metadata")
	}
	mustRefuse(t, "http://169.254.7.1:8080/mcp", shortLimits(false, nil), "link-local", "give the MCP server's address on this machine or the LAN")
}

// A name that resolves to a link-local address (DNS rebinding's trick)
// is refused at the dial: the address dialled is checked, not the name.
func TestHTTPLinkLocalByNameRefused(t *testing.T) {
	res := dnstest.New(t, map[string]string{"mcp.example.": "169.254.169.254", "near.example.": "169.254.3.4"})
	mustRefuse(t, "http://mcp.example/mcp", shortLimits(false, res), "169.254.169.254:80", "metadata")
	mustRefuse(t, "http://near.example:9000/mcp", shortLimits(false, res), "169.254.3.4:9000", "link-local")
}

// On an air-gapped machine an address on the internet is refused, by
// address and by a name resolving to one, saying what to do.
func TestHTTPAirGappedRefusesInternet(t *testing.T) {
	res := dnstest.New(t, map[string]string{"mcp.example.": "93.184.216.34"})
	for _, u := range []string{"http://93.184.216.34/mcp", "http://mcp.example/mcp"} {
		mustRefuse(t, u, shortLimits(true, res), "air-gapped", "93.184.216.34:80 is on the internet",
			"run the MCP server on this machine or the LAN, or audit the assistant as online and turn Settings → Browsing's air-gapped switch off")
	}
}

// A server on loopback is reached (the usual case), air-gapped too, and
// its tool answers.
func TestHTTPLoopbackReached(t *testing.T) {
	url := sumServer(t)
	for _, gapped := range []bool{false, true} {
		c, err := Connect(t.Context(), Server{Name: "sum", URL: url}, "", shortLimits(gapped, nil))
		if err != nil {
			t.Fatalf("air-gapped %v: %v", gapped, err)
		}
		out, isErr, err := c.Call(t.Context(), "sum", []byte(`{"A": 2, "B": 40}`))
		c.Close()
		if err != nil || isErr || !strings.Contains(out, "42") {
			t.Fatalf("air-gapped %v: sum: %q %v %v", gapped, out, isErr, err)
		}
	}
}
