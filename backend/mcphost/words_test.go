package mcphost

import (
	"errors"
	"net"
	"strings"
	"testing"
)

// A URL where nothing listens is said in words: what to do, not the
// transport's chain of calls.
func TestConnectRefusedInWords(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/mcp"
	l.Close() // nothing listens there now
	_, err = Connect(t.Context(), Server{Name: "nobody", URL: url}, "", DefaultLimits)
	if !errors.Is(err, ErrBadServer) || !strings.Contains(err.Error(), "nobody: could not connect: nothing answers at "+url+" (connection refused): start the server") {
		t.Fatalf("connection refused: %v", err)
	}
}
