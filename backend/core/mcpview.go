package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
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

// MCPImportResult is what an import added and what it could not.
type MCPImportResult struct {
	Added  []MCPImported    `json:"added"`
	Failed []MCPImportError `json:"failed"`
}

// MCPImported is one server an import added: its name in rehome, and
// "stdio" or "http".
type MCPImported struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// MCPImportError is one server an import left out, and why.
type MCPImportError struct {
	Name  string `json:"name"`
	Error string `json:"error"`
}

// MCPSource is where an import reads another MCP host's servers: the
// text of its file (pasted, or a file the page read), or the file of a
// known host (HostFiles) in this user's home.
type MCPSource struct {
	Text string `json:"text,omitempty"`
	Host string `json:"host,omitempty"`
}

// MCPImportEntry is one server of another host's file as the faces show
// it before importing: the values of its environment stay in the file.
type MCPImportEntry struct {
	// HostName is the other host's name for it, Name rehome's.
	HostName string   `json:"host_name"`
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Command  []string `json:"command,omitempty"`
	URL      string   `json:"url,omitempty"`
	EnvNames []string `json:"env_names"`
	// Problem says why it could not be added as it is ("" when it can).
	Problem string `json:"problem,omitempty"`
}

func (m *MCPServers) read(from MCPSource) ([]mcphost.HostEntry, error) {
	data := []byte(from.Text)
	if from.Host != "" {
		var err error
		if data, err = m.HostFile(from.Host); err != nil {
			return nil, err
		}
	}
	return mcphost.ParseHostConfig(data)
}

// Preview lists the servers of another MCP host's configuration (LM
// Studio's mcp.json, Claude Desktop's, Jan's, VS Code's) without adding
// any.
func (m *MCPServers) Preview(from MCPSource) ([]MCPImportEntry, error) {
	entries, err := m.read(from)
	if err != nil {
		return nil, err
	}
	out := []MCPImportEntry{}
	for _, e := range entries {
		v := MCPImportEntry{HostName: e.Name, Name: e.Server.Name, Kind: e.Server.Kind(), Command: e.Server.Command, URL: e.Server.URL, EnvNames: []string{}}
		for _, kv := range e.Server.Env {
			k, _, _ := strings.Cut(kv, "=")
			v.EnvNames = append(v.EnvNames, k)
		}
		if err := e.Server.Check(); err != nil {
			v.Problem = err.Error()
		}
		out = append(out, v)
	}
	return out, nil
}

// Import adds the servers of another MCP host's configuration to the
// assistant ref names (only those named in only, by either name, when it
// names any); each that cannot be added is said in Failed, the rest are
// added. confirm (nil: none) is asked once about the servers to add
// first, and refusing adds none.
func (m *MCPServers) Import(ref string, from MCPSource, only []string, confirm MCPConfirm) (MCPImportResult, error) {
	entries, err := m.read(from)
	if err != nil {
		return MCPImportResult{}, err
	}
	a, err := m.c.ResolveAssistant(ref)
	if err != nil {
		return MCPImportResult{}, err
	}
	var picked []mcphost.HostEntry
	for _, e := range entries {
		if len(only) == 0 || slices.Contains(only, e.Name) || slices.Contains(only, e.Server.Name) {
			picked = append(picked, e)
		}
	}
	if len(picked) == 0 {
		return MCPImportResult{}, fmt.Errorf("%w: the file has none of the servers named (%s)", mcphost.ErrBadServer, strings.Join(only, ", "))
	}
	if confirm != nil {
		var list []mcphost.Server
		for _, e := range picked {
			list = append(list, e.Server)
		}
		if err := confirm(a.Name, list); err != nil {
			return MCPImportResult{}, err
		}
	}
	res := MCPImportResult{Added: []MCPImported{}, Failed: []MCPImportError{}}
	for _, e := range picked {
		if err := m.Add(a.ID, e.Server); err != nil {
			res.Failed = append(res.Failed, MCPImportError{Name: e.Name, Error: err.Error()})
			continue
		}
		res.Added = append(res.Added, MCPImported{Name: e.Server.Name, Kind: e.Server.Kind()})
	}
	return res, nil
}

// MCPHostFile is another MCP host's configuration on this machine.
type MCPHostFile struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Path  string `json:"path"`
	Found bool   `json:"found"`
}

// HostFiles are the MCP hosts rehome knows and whether each keeps its
// file in this user's home.
func (m *MCPServers) HostFiles() ([]MCPHostFile, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, err
	}
	out := []MCPHostFile{}
	for _, h := range mcphost.Hosts {
		p := h.File(home)
		st, err := os.Stat(p)
		out = append(out, MCPHostFile{ID: h.ID, Label: h.Label, Path: p, Found: err == nil && st.Mode().IsRegular()})
	}
	return out, nil
}

// HostFile reads the configuration of the known MCP host id (HostFiles)
// from this user's home.
func (m *MCPServers) HostFile(id string) ([]byte, error) {
	h, ok := mcphost.HostByID(id)
	if !ok {
		return nil, fmt.Errorf("%w: no MCP host %q (lmstudio, claude, jan or vscode)", mcphost.ErrBadServer, id)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, err
	}
	p := h.File(home)
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %s keeps no servers here (%s): %v", mcphost.ErrBadServer, h.Label, p, err)
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, mcphost.MaxHostConfig+1))
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
