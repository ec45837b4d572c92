package sandbox

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"rehome/sandbox/link"
)

// requestLog is a Unix-socket proxy in front of the real Podman service
// that writes down the request line of every request that passes.
type requestLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *requestLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.lines
	l.lines = nil
	return out
}

// startRequestLog serves a proxy to the service at target (a socket path)
// and returns its URI.
func startRequestLog(t *testing.T, target string) (string, *requestLog) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "p.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	log := &requestLog{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("unix", target)
			if err != nil {
				c.Close()
				continue
			}
			go func() { io.Copy(c, s); c.Close() }()
			go func() {
				defer s.Close()
				r := bufio.NewReader(io.TeeReader(c, s))
				for {
					req, err := http.ReadRequest(r)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					log.mu.Lock()
					log.lines = append(log.lines, req.Method+" "+req.URL.RequestURI())
					log.mu.Unlock()
					if req.Header.Get("Upgrade") != "" {
						io.Copy(io.Discard, r) // the stream: bytes pass on as they are
						return
					}
				}
			}()
		}
	}()
	return "unix://" + sock, log
}

// A run asks the service only what it needs: create, attach, start and
// one removal whose answer is the proof the container is gone — no image
// check before a create that says whether the image is there, no ping of
// a second connection, no inspect before the attach, no polling for the
// exit status the runner already gave, no look after a removal that
// succeeded (each is a round trip, and an inspect makes the service ask
// the runtime). The container is gone all the same, and the exit status
// is the code's.
func TestRunRequests(t *testing.T) {
	real := testEngine(t)
	uri, log := startRequestLog(t, strings.TrimPrefix(real.Host().ServiceURI, "unix://"))
	ctx := context.Background()
	rt, _ := real.Runtime(ctx)
	e, err := New(ctx, Options{Connect: link.ConnectOptions{URI: uri}, Runtime: rt})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// A first run pays for what an engine does once (the runtime's probe).
	if _, err := e.Run(ctx, RunRequest{Code: "pass"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		code string
		exit int
	}{{"print(1)", 0}, {"print(2)\nraise SystemExit(3)  # NONZERO_OK", 3}} {
		log.take() // the connection's own requests, the sweep's
		res, err := e.Run(ctx, RunRequest{Code: c.code, OutputDir: filepath.Join(t.TempDir(), "out")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != c.exit || !strings.HasPrefix(res.Stdout, c.code[6:7]) {
			t.Fatalf("%q: exit %d, stdout %q: %s", c.code, res.ExitCode, res.Stdout, res.Summary)
		}
		assertGone(t, real, res.ID)
		var create, attach, start, remove int
		lines := log.take()
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, "POST ") && strings.HasSuffix(l, "/containers/create"):
				create++
			case strings.HasPrefix(l, "POST ") && strings.Contains(l, "/attach?"):
				attach++
			case strings.HasPrefix(l, "POST ") && strings.Contains(l, "/start"):
				start++
			case strings.HasPrefix(l, "DELETE ") && strings.Contains(l, "/containers/"):
				remove++
			case strings.HasPrefix(l, "GET ") && strings.Contains(l, "/containers/json?"):
				// the sweep of leftovers, beside the first run
			default:
				t.Errorf("%q: a request a run does not need: %s", c.code, l)
			}
		}
		if create != 1 || attach != 1 || start != 1 || remove != 1 {
			t.Errorf("%q: create %d, attach %d, start %d, remove %d: want one each (%q)", c.code, create, attach, start, remove, lines)
		}
	}
}
