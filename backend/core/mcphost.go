package core

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"rehome/backend/actions"
	"rehome/backend/llm"
	"rehome/backend/mcphost"
	"rehome/backend/store"
)

// MCPServers is the service of the MCP servers an assistant uses: added,
// listed, tested and removed by the faces, their tools given to the ask
// loop. They are kept in Settings under mcp-servers/<assistant>, never in
// the assistant's record: a bundle or an export carries no command to
// run on another machine.
type MCPServers struct {
	c     *Core
	mu    sync.Mutex
	conns map[string]*mcpConn
}

type mcpConn struct {
	conn *mcphost.Conn
	srv  mcphost.Server
	// airGapped is the guard the connection was made with.
	airGapped bool
	used      time.Time
}

// mcpIdle is how long an unused server connection is kept.
const mcpIdle = 10 * time.Minute

type mcpRecord struct {
	Schema  int              `json:"schema"`
	Servers []mcphost.Server `json:"servers"`
	// Seen is what the last connection to each server found (mcpview.go).
	Seen map[string]*mcpSeen `json:"seen,omitempty"`
}

// MCPServers is the MCP servers' service (one per Core: it holds the
// connections).
func (c *Core) MCPServers() *MCPServers {
	c.mcpOnce.Do(func() { c.mcpSvc = &MCPServers{c: c, conns: map[string]*mcpConn{}} })
	return c.mcpSvc
}

func mcpKey(assistantID string) string { return "mcp-servers/" + assistantID }

func (m *MCPServers) load(id string) (mcpRecord, error) {
	var rec mcpRecord
	err := m.c.db(func(st *store.Store) error { return st.Get(store.Settings, mcpKey(id), &rec) })
	if errors.Is(err, store.ErrNotFound) {
		err = nil
	}
	return rec, err
}

func (m *MCPServers) edit(id string, fn func(*mcpRecord) error) error {
	return m.c.db(func(st *store.Store) error {
		var rec mcpRecord
		return st.Upsert(store.Settings, mcpKey(id), &rec, func() { rec = mcpRecord{} },
			func() error { rec.Schema = 1; return fn(&rec) })
	})
}

// List is the servers of the assistant ref names (id, name or prefix).
func (m *MCPServers) List(ref string) ([]mcphost.Server, error) {
	a, err := m.c.ResolveAssistant(ref)
	if err != nil {
		return nil, err
	}
	rec, err := m.load(a.ID)
	return rec.Servers, err
}

// Add adds s to the assistant ref names; a name it has already is an
// error.
func (m *MCPServers) Add(ref string, s mcphost.Server) error { return m.AddConfirmed(ref, s, nil) }

// MCPConfirm asks the user whether servers may be added to the assistant
// named assistant (a face's dialog); an error refuses them all.
type MCPConfirm func(assistant string, servers []mcphost.Server) error

// AddConfirmed is Add, with confirm (nil: none) asked first.
func (m *MCPServers) AddConfirmed(ref string, s mcphost.Server, confirm MCPConfirm) error {
	if err := s.Check(); err != nil {
		return err
	}
	a, err := m.c.ResolveAssistant(ref)
	if err != nil {
		return err
	}
	if confirm != nil {
		if err := confirm(a.Name, []mcphost.Server{s}); err != nil {
			return err
		}
	}
	return m.edit(a.ID, func(r *mcpRecord) error {
		for _, o := range r.Servers {
			if o.Name == s.Name {
				return fmt.Errorf("%w: %s has an MCP server named %s already (`rehome mcp rm` it first)", mcphost.ErrBadServer, a.Name, s.Name)
			}
		}
		r.Servers = append(r.Servers, s)
		delete(r.Seen, s.Name)
		return nil
	})
}

// Remove removes the server name of the assistant ref names.
func (m *MCPServers) Remove(ref, name string) error {
	a, err := m.c.ResolveAssistant(ref)
	if err != nil {
		return err
	}
	m.drop(a.ID, name)
	return m.edit(a.ID, func(r *mcpRecord) error {
		i := slices.IndexFunc(r.Servers, func(s mcphost.Server) bool { return s.Name == name })
		if i < 0 {
			return fmt.Errorf("%w: %s has no MCP server %s (see `rehome mcp list %s`)", mcphost.ErrBadServer, a.Name, name, a.Name)
		}
		r.Servers = slices.Delete(r.Servers, i, i+1)
		delete(r.Seen, name)
		return nil
	})
}

// MCPTool is one tool of a server as the faces list it.
type MCPTool struct {
	Name     string       `json:"name"`
	LoopName string       `json:"loop_name"`
	Rule     actions.Rule `json:"rule"`
	About    string       `json:"description"`
}

// Test connects to the server name of the assistant ref names and lists
// its tools with the rule each call is made under.
func (m *MCPServers) Test(ctx context.Context, ref, name string) ([]MCPTool, []string, error) {
	a, err := m.c.ResolveAssistant(ref)
	if err != nil {
		return nil, nil, err
	}
	c, err := m.conn(ctx, a.ID, name)
	if err != nil {
		m.remember(a.ID, name, nil, nil, err)
		return nil, nil, err
	}
	out, err := listTools(ctx, c, name)
	m.remember(a.ID, name, out, c.Notes, err)
	if err != nil {
		return nil, nil, err
	}
	return out, c.Notes, nil
}

func listTools(ctx context.Context, c *mcphost.Conn, name string) ([]MCPTool, error) {
	tools, err := c.Tools(ctx)
	if err != nil {
		return nil, err
	}
	out := []MCPTool{}
	for _, t := range tools {
		out = append(out, MCPTool{Name: t.Name, LoopName: mcphost.ToolName(name, t.Name), Rule: mcphost.Rule(t), About: t.Description})
	}
	return out, nil
}

// conn is the open connection to the assistant's server name, started
// once and kept while used.
func (m *MCPServers) conn(ctx context.Context, id, name string) (*mcphost.Conn, error) {
	rec, err := m.load(id)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(rec.Servers, func(s mcphost.Server) bool { return s.Name == name })
	if i < 0 {
		return nil, fmt.Errorf("%w: no MCP server %s", mcphost.ErrBadServer, name)
	}
	s := rec.Servers[i]
	key := id + "/" + name
	lim := mcphost.DefaultLimits
	lim.AirGapped = m.airGapped(id)
	m.mu.Lock()
	defer m.mu.Unlock()
	if old := m.conns[key]; old != nil && slices.Equal(old.srv.Command, s.Command) && old.srv.URL == s.URL && slices.Equal(old.srv.Env, s.Env) && old.airGapped == lim.AirGapped {
		old.used = time.Now()
		return old.conn, nil
	}
	c, err := mcphost.Connect(ctx, s, filepath.Join(m.c.dir, MCPDir, "servers", id, name), lim)
	if err != nil {
		return nil, err
	}
	if old := m.conns[key]; old != nil {
		old.conn.Close()
	}
	m.conns[key] = &mcpConn{conn: c, srv: s, airGapped: lim.AirGapped, used: time.Now()}
	m.reapLocked()
	return c, nil
}

// airGapped says whether the assistant's HTTP servers are reached as on
// an air-gapped machine: its latest audit says so (as for its actions),
// or Settings → Browsing's air-gapped switch is on (as for browsing).
func (m *MCPServers) airGapped(id string) bool {
	if m.c.Actions().AirGapped(id) {
		return true
	}
	set, err := m.c.Browse().Settings()
	return err == nil && set.AirGapped
}

func (m *MCPServers) drop(id, name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.conns[id+"/"+name]; c != nil {
		c.conn.Close()
		delete(m.conns, id+"/"+name)
	}
}

// reapLocked closes the connections unused for mcpIdle.
func (m *MCPServers) reapLocked() {
	for k, c := range m.conns {
		if time.Since(c.used) > mcpIdle {
			c.conn.Close()
			delete(m.conns, k)
		}
	}
}

// CloseAll ends every server connection (Core.Close).
func (m *MCPServers) CloseAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, c := range m.conns {
		c.conn.Close()
		delete(m.conns, k)
	}
}

// Tools are the loop tools of the assistant's servers that are on; a
// server that cannot be reached is left out and said in the notes.
func (m *MCPServers) Tools(ctx context.Context, assistantID, assistantName string, confirm actions.Confirm, taken map[string]bool) ([]llm.LoopTool, []string) {
	rec, err := m.load(assistantID)
	if err != nil {
		return nil, []string{"the MCP servers could not be read: " + err.Error()}
	}
	var out []llm.LoopTool
	var notes []string
	for _, s := range rec.Servers {
		if s.Off {
			continue
		}
		c, err := m.conn(ctx, assistantID, s.Name)
		if err != nil {
			m.remember(assistantID, s.Name, nil, nil, err)
			notes = append(notes, fmt.Sprintf("the MCP server %s was left out: %v", s.Name, err))
			continue
		}
		if listed, err := listTools(ctx, c, s.Name); err == nil {
			m.remember(assistantID, s.Name, listed, c.Notes, nil)
		}
		name := s.Name
		ts, n, err := c.LoopTools(ctx, mcphost.Use{Assistant: assistantName, Confirm: confirm,
			Allow: func(tool string) error { return m.allow(assistantID, name, tool) }}, taken)
		if err != nil {
			notes = append(notes, fmt.Sprintf("the MCP server %s was left out: %v", s.Name, err))
			continue
		}
		out, notes = append(out, ts...), append(notes, n...)
	}
	return out, notes
}

func (m *MCPServers) allow(id, server, tool string) error {
	return m.edit(id, func(r *mcpRecord) error {
		for i := range r.Servers {
			if r.Servers[i].Name == server && !slices.Contains(r.Servers[i].AlwaysAllow, tool) {
				r.Servers[i].AlwaysAllow = append(r.Servers[i].AlwaysAllow, tool)
			}
		}
		return nil
	})
}
