package core

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"rehome/backend/assistant"
	"rehome/backend/audit"
	"rehome/backend/mcphost"
)

// What Settings → MCP shows and changes: each assistant's servers with
// their state and the tools last listed, on/off, "Always allow" per tool,
// and the import of another MCP host's file. The window, the browser and
// the terminal all come here.

// MCPServerView is one MCP server of an assistant as the faces show it.
// The values of its environment never come back, only their names.
type MCPServerView struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"` // "stdio" or "http"
	Command []string `json:"command,omitempty"`
	URL     string   `json:"url,omitempty"`
	// EnvNames are the variables the user named for it.
	EnvNames []string `json:"env_names"`
	On       bool     `json:"on"`
	// State is "off", "running" (a connection is open now), "failed"
	// (the last try did not connect: Error says why), "listed" (its
	// tools were listed at Listed) or "untested".
	State  string `json:"state"`
	Error  string `json:"error,omitempty"`
	Listed string `json:"listed,omitempty"` // RFC 3339, when Tools were listed
	// Tools are the tools last listed (by Test, or by an answer that
	// used them), with the rule each call is made under and whether the
	// user chose "Always allow" for it.
	Tools []MCPToolView `json:"tools"`
	Notes []string      `json:"notes"`
}

// MCPToolView is one tool of a server as the faces list it.
type MCPToolView struct {
	MCPTool
	// AlwaysAllowed: the user chose "Always allow" (only a tool whose
	// rule is "ask" can have it).
	AlwaysAllowed bool `json:"always_allowed"`
}

// MCPAssistantServers is one assistant and its MCP servers.
type MCPAssistantServers struct {
	AssistantID   string          `json:"assistant_id"`
	AssistantName string          `json:"assistant_name"`
	Servers       []MCPServerView `json:"servers"`
}

// mcpSeen is what the last connection to a server found.
type mcpSeen struct {
	Tools []MCPTool `json:"tools,omitempty"`
	Notes []string  `json:"notes,omitempty"`
	Error string    `json:"error,omitempty"`
	At    time.Time `json:"at"`
}

// Overview lists every assistant (as Assistants lists them) with its MCP
// servers.
func (m *MCPServers) Overview() ([]MCPAssistantServers, error) {
	if err := m.c.Ready(); err != nil {
		return nil, err
	}
	list, err := m.c.Assistants().List()
	if err != nil {
		return nil, err
	}
	out := []MCPAssistantServers{}
	for _, a := range list {
		v, err := m.views(a.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, MCPAssistantServers{AssistantID: a.ID, AssistantName: a.Name, Servers: v})
	}
	return out, nil
}

// Views are the servers of the assistant ref names, as the faces show
// them.
func (m *MCPServers) Views(ref string) ([]MCPServerView, error) {
	a, err := m.c.ResolveAssistant(ref)
	if err != nil {
		return nil, err
	}
	return m.views(a.ID)
}

func (m *MCPServers) views(id string) ([]MCPServerView, error) {
	rec, err := m.load(id)
	if err != nil {
		return nil, err
	}
	out := []MCPServerView{}
	for _, s := range rec.Servers {
		out = append(out, m.view(id, s, rec.Seen[s.Name]))
	}
	return out, nil
}

func (m *MCPServers) view(id string, s mcphost.Server, seen *mcpSeen) MCPServerView {
	v := MCPServerView{Name: s.Name, Kind: s.Kind(), Command: s.Command, URL: s.URL, EnvNames: []string{}, On: !s.Off, Tools: []MCPToolView{}, Notes: []string{}}
	for _, kv := range s.Env {
		k, _, _ := strings.Cut(kv, "=")
		v.EnvNames = append(v.EnvNames, k)
	}
	if seen != nil {
		v.Error, v.Notes = seen.Error, append(v.Notes, seen.Notes...)
		v.Listed = seen.At.UTC().Format(time.RFC3339)
		for _, t := range seen.Tools {
			v.Tools = append(v.Tools, MCPToolView{MCPTool: t, AlwaysAllowed: t.Rule == "ask" && slices.Contains(s.AlwaysAllow, t.Name)})
		}
	}
	m.mu.Lock()
	_, open := m.conns[id+"/"+s.Name]
	m.mu.Unlock()
	switch {
	case s.Off:
		v.State = "off"
	case open:
		v.State = "running"
	case seen != nil && seen.Error != "":
		v.State = "failed"
	case seen != nil:
		v.State = "listed"
	default:
		v.State = "untested"
	}
	return v
}

// Check tests the server name of the assistant ref names (connect and
// list its tools, as Test) and returns it as the faces show it; what it
// found is kept for the list and the audit. A server that does not
// connect is an error, in words, and is kept as "failed" with it.
func (m *MCPServers) Check(ctx context.Context, ref, name string) (MCPServerView, error) {
	a, err := m.c.ResolveAssistant(ref)
	if err != nil {
		return MCPServerView{}, err
	}
	if _, _, err := m.Test(ctx, a.ID, name); err != nil {
		return MCPServerView{}, err
	}
	list, err := m.views(a.ID)
	if err != nil {
		return MCPServerView{}, err
	}
	i := slices.IndexFunc(list, func(v MCPServerView) bool { return v.Name == name })
	if i < 0 {
		return MCPServerView{}, fmt.Errorf("%w: %s has no MCP server %s", mcphost.ErrBadServer, a.Name, name)
	}
	return list[i], nil
}

// remember keeps what a connection to the server found (its tools, or
// the error); a list the same as the one kept is not written again.
func (m *MCPServers) remember(id, name string, tools []MCPTool, notes []string, cerr error) {
	seen := mcpSeen{Tools: tools, Notes: notes, At: time.Now().UTC()}
	if cerr != nil {
		if errors.Is(cerr, context.Canceled) {
			return
		}
		seen = mcpSeen{Error: cerr.Error(), At: seen.At}
	}
	rec, err := m.load(id)
	if err != nil || !slices.ContainsFunc(rec.Servers, func(s mcphost.Server) bool { return s.Name == name }) {
		return
	}
	if old := rec.Seen[name]; old != nil && old.Error == seen.Error && slices.Equal(old.Tools, seen.Tools) && slices.Equal(old.Notes, seen.Notes) {
		return
	}
	err = m.edit(id, func(r *mcpRecord) error {
		if r.Seen == nil {
			r.Seen = map[string]*mcpSeen{}
		}
		r.Seen[name] = &seen
		return nil
	})
	if err != nil {
		m.c.log.Warn("keep an MCP server's tools", "server", name, "err", err)
	}
}

// SetOn switches the server name of the assistant ref names on (its
// tools offered to the model) or off (kept, not offered; its connection
// closed).
func (m *MCPServers) SetOn(ref, name string, on bool) error {
	a, err := m.c.ResolveAssistant(ref)
	if err != nil {
		return err
	}
	if !on {
		m.drop(a.ID, name)
	}
	return m.editServer(a, name, func(s *mcphost.Server) error { s.Off = !on; return nil })
}

// SetAlwaysAllow keeps (allow) or takes back "Always allow" for a tool of
// the server name: its calls then run without asking, or ask again. Only
// a tool that asks with "Always allow" offered can have it: a read-only
// tool never asks, a destructive one asks every call.
func (m *MCPServers) SetAlwaysAllow(ref, name, tool string, allow bool) error {
	a, err := m.c.ResolveAssistant(ref)
	if err != nil {
		return err
	}
	rec, err := m.load(a.ID)
	if err != nil {
		return err
	}
	if allow {
		seen := rec.Seen[name]
		if seen == nil {
			return fmt.Errorf("%w: press Test first (`rehome mcp test %s %s`): rehome allows a tool it has seen", mcphost.ErrBadServer, a.Name, name)
		}
		i := slices.IndexFunc(seen.Tools, func(t MCPTool) bool { return t.Name == tool })
		switch {
		case i < 0:
			return fmt.Errorf("%w: %s has no tool %s (press Test to list them again)", mcphost.ErrBadServer, name, tool)
		case seen.Tools[i].Rule != "ask":
			return fmt.Errorf("%w: %s's %s cannot be always allowed: %s", mcphost.ErrBadServer, name, tool, ruleWhy(string(seen.Tools[i].Rule)))
		}
	}
	m.drop(a.ID, name) // an open connection holds the old list
	return m.editServer(a, name, func(s *mcphost.Server) error {
		s.AlwaysAllow = slices.DeleteFunc(s.AlwaysAllow, func(t string) bool { return t == tool })
		if allow {
			s.AlwaysAllow = append(s.AlwaysAllow, tool)
		}
		return nil
	})
}

func ruleWhy(rule string) string {
	if rule == "none" {
		return "it is read-only and runs unasked already"
	}
	return "its server marks it destructive, so every call asks"
}

// editServer changes the server name of assistant a with fn.
func (m *MCPServers) editServer(a assistant.Assistant, name string, fn func(*mcphost.Server) error) error {
	return m.edit(a.ID, func(r *mcpRecord) error {
		i := slices.IndexFunc(r.Servers, func(s mcphost.Server) bool { return s.Name == name })
		if i < 0 {
			return fmt.Errorf("%w: %s has no MCP server %s (see `rehome mcp list %s`)", mcphost.ErrBadServer, a.Name, name, a.Name)
		}
		return fn(&r.Servers[i])
	})
}

// mcpFacts is what the audit counts of an assistant's MCP servers.
func (c *Core) mcpFacts(assistantID string) []audit.MCPServer {
	rec, err := c.MCPServers().load(assistantID)
	if err != nil {
		return nil
	}
	var out []audit.MCPServer
	for _, s := range rec.Servers {
		f := audit.MCPServer{Name: s.Name, Kind: s.Kind(), Tools: -1, Off: s.Off}
		if u, err := url.Parse(s.URL); err == nil && s.URL != "" {
			f.Host = strings.ToLower(u.Hostname())
		}
		if seen := rec.Seen[s.Name]; seen != nil && seen.Error == "" {
			f.Tools = len(seen.Tools)
		}
		out = append(out, f)
	}
	return out
}
