package bridge

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"
)

// answerWithin is the bound this file's attacks hold the bridge to: while
// a flood runs, a real call answers within it.
const answerWithin = 2 * time.Second

// floodServer starts the bridge of `rehome serve` on loopback.
func floodServer(t *testing.T) (addr, token string, h *server, cl *connLimiter) {
	t.Helper()
	a := newTestApp(t)
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hosts, _ := LoopbackHosts(ln.Addr())
	token = "flood-test-token"
	handler := NewServer(a.App, ServerOptions{Assets: fstest.MapFS{"index.html": {Data: []byte("<head></head>")}}, Token: token, Hosts: hosts})
	srv, lim := NewHTTPServer(handler, ln)
	go srv.Serve(lim)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), token, handler.(*server), lim.(*connLimiter)
}

// flood opens n connections that each send head and then, if trickle,
// one body byte every 200 ms until the test ends, reading nothing.
func flood(t *testing.T, addr string, n int, head string, trickle bool) {
	t.Helper()
	done := make(chan struct{})
	var conns []net.Conn
	var mu sync.Mutex
	t.Cleanup(func() {
		close(done)
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.DialTimeout("tcp", addr, 2*time.Second)
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			io.WriteString(c, head)
			if !trickle {
				return
			}
			go func() {
				for {
					select {
					case <-done:
						return
					case <-time.After(200 * time.Millisecond):
						if _, err := c.Write([]byte("x")); err != nil {
							return
						}
					}
				}
			}()
		}()
	}
	wg.Wait()
	time.Sleep(500 * time.Millisecond) // let the server take them all in
}

// realCalls makes n calls with the token, one after another, and returns
// their latencies; a call that fails or takes over answerWithin fails the
// test.
func realCalls(t *testing.T, addr, token string, n int) []time.Duration {
	t.Helper()
	cl := &http.Client{Timeout: answerWithin, Transport: &http.Transport{DisableKeepAlives: true}}
	var lat []time.Duration
	for i := 0; i < n; i++ {
		req, _ := http.NewRequest("POST", "http://"+addr+"/api/call/Status", strings.NewReader("[]"))
		req.Header.Set(TokenHeader, token)
		t0 := time.Now()
		res, err := cl.Do(req)
		if err != nil {
			t.Fatalf("real call %d during the flood: %v (after %v)", i+1, err, time.Since(t0).Round(time.Millisecond))
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(body), `"version"`) {
			t.Fatalf("real call %d: HTTP %d %s", i+1, res.StatusCode, body)
		}
		lat = append(lat, time.Since(t0))
		time.Sleep(100 * time.Millisecond)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return lat
}

// Attack: 600 token-less POSTs, each trickling a 200 kB body (on 089ebe7
// the 401 went out before the body was read and the connection stayed,
// reading the trickle: all 512 slots pinned, real calls refused).
func TestBridgeTrickledBodiesHoldNoSlot(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: opens 600 loopback connections")
	}
	addr, token, _, cl := floodServer(t)
	head := fmt.Sprintf("POST /api/call/Status HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 200000\r\n\r\n[", addr)
	flood(t, addr, 600, head, true)
	held := cl.open()
	lat := realCalls(t, addr, token, 10)
	t.Logf("600 trickled token-less POSTs: the bridge holds %d connections (cap %d); 10 real calls, p50 %v, max %v (bound %v)",
		held, MaxConns, lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond), answerWithin)
	if held >= MaxConns {
		t.Fatalf("refused connections still hold %d of %d slots", held, MaxConns)
	}
}

// Attack: 600 event streams with the read key, reading nothing (on
// 089ebe7 each held a slot for as long as it liked: 512 of 512).
func TestBridgeEventStreamsAreCapped(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: opens 600 loopback connections")
	}
	addr, token, h, cl := floodServer(t)
	head := fmt.Sprintf("GET /api/events?k=%s HTTP/1.1\r\nHost: %s\r\n\r\n", ReadKey(token), addr)
	flood(t, addr, 600, head, false)
	streams, held := h.hub.streams(), cl.open()
	lat := realCalls(t, addr, token, 10)
	t.Logf("600 event streams with the read key: %d kept (cap %d), the bridge holds %d connections (cap %d); 10 real calls, p50 %v, max %v (bound %v)",
		streams, MaxEventStreams, held, MaxConns, lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond), answerWithin)
	if streams > MaxEventStreams {
		t.Fatalf("%d event streams open, over the cap of %d", streams, MaxEventStreams)
	}
	// The newest stream is served: it hears an event.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "%s", head)
	time.Sleep(200 * time.Millisecond)
	h.hub.Emit("test:event", "hello")
	c.SetReadDeadline(time.Now().Add(answerWithin))
	buf := make([]byte, 4096)
	var got strings.Builder
	for !strings.Contains(got.String(), "hello") {
		n, err := c.Read(buf)
		if err != nil {
			t.Fatalf("the newest stream heard nothing: %v %q", err, got.String())
		}
		got.Write(buf[:n])
	}
}
