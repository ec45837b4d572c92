package llamarun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// DefaultIdle is how long a started model waits for the next question
// before it is stopped (its memory given back).
const DefaultIdle = 10 * time.Minute

// Manager starts carried models on demand, one chat model at a time (and
// an embedding model beside it), and stops each after its idle time and
// when the Manager is closed.
type Manager struct {
	// LogDir holds each model's log (llama-<name>.log).
	LogDir string
	// Idle is the idle time (default DefaultIdle).
	Idle time.Duration

	mu      sync.Mutex
	running map[string]*entry // by role: "chat" or "embed"
}

type entry struct {
	srv    *Server
	leases int
	timer  *time.Timer
}

// Lease is the use of a started server; Release it when the question ends.
type Lease struct {
	*Server
	once sync.Once
	m    *Manager
	role string
}

// Ensure returns a lease on a server running p's model, starting it (and
// stopping the idle one of the same role) when needed.
func (m *Manager) Ensure(ctx context.Context, p Plan, progress Progress) (*Lease, error) {
	role := "chat"
	if p.Model.Embedding {
		role = "embed"
	}
	m.mu.Lock()
	if m.running == nil {
		m.running = map[string]*entry{}
	}
	if e := m.running[role]; e != nil {
		select {
		case <-e.srv.done:
			delete(m.running, role)
		default:
			if e.srv.Plan.Model.Path == p.Model.Path && e.srv.Plan.Context >= p.Context {
				e.leases++
				if e.timer != nil {
					e.timer.Stop()
				}
				m.mu.Unlock()
				return &Lease{Server: e.srv, m: m, role: role}, nil
			}
			if e.leases > 0 {
				m.mu.Unlock()
				return nil, fmt.Errorf("%w: %s is answering now; ask again when it is done", ErrBusy, e.srv.Plan.Model.Name)
			}
			delete(m.running, role)
			go e.srv.Stop()
		}
	}
	m.mu.Unlock()
	logPath := ""
	if m.LogDir != "" {
		if err := os.MkdirAll(m.LogDir, 0o700); err == nil {
			logPath = filepath.Join(m.LogDir, "llama-"+p.Model.Name+".log")
		}
	}
	srv, err := Start(ctx, p, logPath, progress)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old := m.running[role]; old != nil && old.srv != srv {
		go old.srv.Stop() // started meanwhile by another caller
	}
	m.running[role] = &entry{srv: srv, leases: 1}
	return &Lease{Server: srv, m: m, role: role}, nil
}

// Release ends the lease; the server stops after the idle time unless
// another lease comes.
func (l *Lease) Release() {
	l.once.Do(func() {
		m := l.m
		m.mu.Lock()
		defer m.mu.Unlock()
		e := m.running[l.role]
		if e == nil || e.srv != l.Server {
			return
		}
		e.leases--
		if e.leases > 0 {
			return
		}
		idle := m.Idle
		if idle <= 0 {
			idle = DefaultIdle
		}
		srv := e.srv
		e.timer = time.AfterFunc(idle, func() {
			m.mu.Lock()
			if cur := m.running[l.role]; cur == e && e.leases == 0 {
				delete(m.running, l.role)
			} else {
				m.mu.Unlock()
				return
			}
			m.mu.Unlock()
			srv.Stop()
		})
	})
}

// Running lists the servers running now.
func (m *Manager) Running() []*Server {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Server
	for _, e := range m.running {
		out = append(out, e.srv)
	}
	return out
}

// Stop stops the server of the model at path, if one runs.
func (m *Manager) Stop(path string) bool {
	m.mu.Lock()
	var stop []*Server
	for role, e := range m.running {
		if e.srv.Plan.Model.Path == path {
			stop = append(stop, e.srv)
			delete(m.running, role)
		}
	}
	m.mu.Unlock()
	for _, s := range stop {
		s.Stop()
	}
	return len(stop) > 0
}

// Close stops every server.
func (m *Manager) Close() {
	m.mu.Lock()
	all := m.running
	m.running = nil
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range all {
		wg.Add(1)
		go func(s *Server) { defer wg.Done(); s.Stop() }(e.srv)
	}
	wg.Wait()
}
