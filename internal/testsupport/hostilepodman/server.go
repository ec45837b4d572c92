package hostilepodman

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// Mode is how the service answers every request but the ping.
type Mode string

const (
	// Flood answers 200 with a JSON body of Size bytes (one long string).
	Flood Mode = "flood"
	// ErrorFlood answers 500 with a JSON error body of Size bytes.
	ErrorFlood Mode = "error-flood"
	// Trickle answers 200, then one byte of a JSON body a second, for ever.
	Trickle Mode = "trickle"
	// Liar answers info with a well-formed description whose fields are
	// Size bytes each, terminal escapes among them, and 100,000 cgroup
	// controllers; every other call gets a short error.
	Liar Mode = "liar"
)

// Server is a running hostile service.
type Server struct {
	// URI is unix:///path/to/the/socket, as rehome's --podman takes it.
	URI string
	// Sent is how many body bytes it has written, all answers together.
	Sent atomic.Int64
	// Requests counts the requests it answered (the ping included).
	Requests atomic.Int64
	srv      *http.Server
}

// Start serves mode on a socket in dir; size is the flood's length in
// bytes. Close it when done.
func Start(dir string, mode Mode, size int64) (*Server, error) {
	sock := filepath.Join(dir, "podman.sock")
	os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, err
	}
	s := &Server{URI: "unix://" + sock}
	s.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Requests.Add(1)
		s.answer(w, r, mode, size)
	}), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the service and ends the answers in flight.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s.srv.Shutdown(ctx)
	return s.srv.Close()
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, mode Mode, size int64) {
	w.Header().Set("Libpod-API-Version", "4.3.1")
	w.Header().Set("Api-Version", "1.41")
	if strings.HasSuffix(r.URL.Path, "/_ping") {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("OK"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch mode {
	case Trickle:
		w.WriteHeader(http.StatusOK)
		s.trickle(w, r)
	case Liar:
		s.lie(w, r, size)
	case ErrorFlood:
		w.WriteHeader(http.StatusInternalServerError)
		s.flood(w, r, `{"cause":"x","message":"`, `","response":500}`, size)
	default:
		w.WriteHeader(http.StatusOK)
		s.flood(w, r, `{"host":{"arch":"`, `"}}`, size)
	}
}

// flood writes head, size bytes of 'a' and tail, until the client goes.
func (s *Server) flood(w http.ResponseWriter, r *http.Request, head, tail string, size int64) {
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	n, _ := w.Write([]byte(head))
	s.Sent.Add(int64(n))
	for left := size; left > 0 && r.Context().Err() == nil; {
		p := chunk[:min(int64(len(chunk)), left)]
		n, err := w.Write(p)
		s.Sent.Add(int64(n))
		if err != nil {
			return
		}
		left -= int64(n)
	}
	w.Write([]byte(tail))
}

func (s *Server) trickle(w http.ResponseWriter, r *http.Request) {
	f, _ := w.(http.Flusher)
	w.Write([]byte(`{"host":{"arch":"`))
	for r.Context().Err() == nil {
		if f != nil {
			f.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(time.Second):
		}
		if _, err := w.Write([]byte("a")); err != nil {
			return
		}
		s.Sent.Add(1)
	}
}

// LiarEscape is the terminal escape each of Liar's fields carries (it
// clears the screen and sets the terminal's title).
const LiarEscape = "\x1b[2J\x1b]0;pwned\x07"

func (s *Server) lie(w http.ResponseWriter, r *http.Request, size int64) {
	if !strings.HasSuffix(r.URL.Path, "/info") {
		w.WriteHeader(http.StatusNotFound)
		n, _ := w.Write([]byte(`{"cause":"no such thing","message":"no such thing","response":404}`))
		s.Sent.Add(int64(n))
		return
	}
	long := LiarEscape + strings.Repeat("a", int(size))
	ctl := make([]string, 100_000)
	for i := range ctl {
		ctl[i] = "cpu" + LiarEscape
	}
	body, _ := json.Marshal(map[string]any{
		"host": map[string]any{"kernel": long, "cgroupVersion": long, "cgroupManager": long, "cgroupControllers": ctl,
			"security": map[string]any{"rootless": true, "seccompEnabled": true}, "ociRuntime": map[string]any{"name": long}},
		"store":   map[string]any{"graphDriverName": long},
		"version": map[string]any{"Version": long, "APIVersion": "4.3.1"},
	})
	w.WriteHeader(http.StatusOK)
	n, _ := w.Write(body)
	s.Sent.Add(int64(n))
}
