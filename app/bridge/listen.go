package bridge

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Limits of the bridge's HTTP server. A browser opens a handful of
// connections; these bound what a flood of them (token-less, idle, or
// never sending a request) can hold, so that a real call still gets in.
const (
	// MaxConns is the most connections the bridge keeps open at once. At
	// the cap, a new connection evicts the oldest one that has not sent a
	// request yet or sits idle between requests; only when every one is
	// busy with a request is the new one closed.
	MaxConns = 512
	// HeaderTimeout is how long a connection may take to send its request
	// line and headers.
	HeaderTimeout = 10 * time.Second
	// IdleTimeout closes a keep-alive connection idle this long.
	IdleTimeout = 60 * time.Second
	// MaxHeaderBytes bounds one request's headers.
	MaxHeaderBytes = 64 << 10
	// callReadTimeout bounds reading one call's arguments (uploads and
	// the event stream have no such bound: they are long by nature).
	callReadTimeout = time.Minute
)

// NewHTTPServer returns the http.Server of `rehome serve` for handler and
// the listener to serve it on: ln under a connection cap (MaxConns, with
// eviction of idle connections), header and idle timeouts, bounded
// headers. No write timeout: the event stream stays open for as long as
// the page does.
func NewHTTPServer(handler http.Handler, ln net.Listener) (*http.Server, net.Listener) {
	lim := newConnLimiter(ln, MaxConns)
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: HeaderTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		ConnState:         lim.track,
	}
	return srv, lim
}

// connLimiter is a listener that keeps at most max connections open.
type connLimiter struct {
	net.Listener
	max   int
	mu    sync.Mutex
	conns map[net.Conn]*connInfo
}

type connInfo struct {
	state http.ConnState
	since time.Time
}

func newConnLimiter(ln net.Listener, max int) *connLimiter {
	return &connLimiter{Listener: ln, max: max, conns: map[net.Conn]*connInfo{}}
}

// Accept takes the next connection, making room for it at the cap.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if len(l.conns) >= l.max {
			victim := l.evictable()
			if victim == nil {
				l.mu.Unlock()
				c.Close() // every slot is busy with a real request
				continue
			}
			delete(l.conns, victim)
			victim.Close()
		}
		l.conns[c] = &connInfo{state: http.StateNew, since: time.Now()}
		l.mu.Unlock()
		return c, nil
	}
}

// evictable returns the oldest connection that is waiting for a request
// (new or idle), or nil. Called with l.mu held.
func (l *connLimiter) evictable() net.Conn {
	var victim net.Conn
	var oldest time.Time
	for c, in := range l.conns {
		if in.state != http.StateNew && in.state != http.StateIdle {
			continue
		}
		if victim == nil || in.since.Before(oldest) {
			victim, oldest = c, in.since
		}
	}
	return victim
}

// track is the server's ConnState hook.
func (l *connLimiter) track(c net.Conn, s http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s {
	case http.StateClosed, http.StateHijacked:
		delete(l.conns, c)
	default:
		if in, ok := l.conns[c]; ok {
			in.state, in.since = s, time.Now()
		}
	}
}

// open returns how many connections are open (for tests).
func (l *connLimiter) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}
