package core

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"rehome/backend/mcphost"
)

// The import of another MCP host's servers (LM Studio, Claude Desktop,
// Jan, VS Code) into an assistant's, for Settings → MCP and
// `rehome mcp import`.

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
