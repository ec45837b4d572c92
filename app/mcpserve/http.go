package mcpserve

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Listen is a listener on addr, which must be on this machine (a
// loopback address or localhost; port 0 picks a free one).
func Listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %q is not HOST:PORT (try 127.0.0.1:8765)", ErrNotLoopback, addr)
	}
	if !loopbackHost(host) {
		return nil, fmt.Errorf("%w: %s is not a loopback address; use 127.0.0.1:PORT (another machine reaches it over `ssh -L`)", ErrNotLoopback, host)
	}
	return net.Listen("tcp", addr)
}

func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Handler is the Streamable HTTP endpoint: every request carries the
// bearer token, comes from a page of this machine or none (Origin), and
// names this machine as its Host (the SDK's DNS-rebinding check); a
// request's body is bounded by MaxMessage.
func (s *Server) Handler(token string) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, &mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute})
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="rehome"`)
			http.Error(w, "rehome: this MCP server needs the token `rehome mcp serve --http` printed (Authorization: Bearer TOKEN)", http.StatusUnauthorized)
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || !loopbackHost(u.Hostname()) {
				http.Error(w, "rehome: requests from a web page of another site are refused", http.StatusForbidden)
				return
			}
		}
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		if !loopbackHost(host) {
			http.Error(w, "rehome: the Host is not this machine", http.StatusForbidden)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxMessage)
		h.ServeHTTP(w, r)
	})
}

// ServeHTTP serves the endpoint at /mcp on l until ctx ends.
func (s *Server) ServeHTTP(ctx context.Context, l net.Listener, token string) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.Handler(token))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	defer s.closeAll()
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
