package mcphost

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// MaxHostConfig is the most bytes of an MCP host's configuration read.
const MaxHostConfig = 4 << 20

// HostEntry is one server as another MCP host keeps it, renamed the way
// rehome names servers.
type HostEntry struct {
	// Name is the host's name for it; Server the server as rehome would
	// add it (Server.Name made of the host's name, see HostName).
	Name   string `json:"name"`
	Server Server `json:"server"`
}

type hostEntry struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	// ServerURL is some hosts' spelling of url.
	ServerURL string `json:"serverUrl"`
	// Active false (Jan) or Disabled true (Cline, Claude Code): the
	// host keeps it switched off, and so does rehome.
	Active   *bool `json:"active"`
	Disabled bool  `json:"disabled"`
}

// ParseHostConfig reads the servers of an MCP host's configuration: LM
// Studio's mcp.json, Claude Desktop's claude_desktop_config.json, Jan's
// mcp_config.json ({"mcpServers": {NAME: {command, args, env} or {url}}})
// or VS Code's mcp.json ("servers"), sorted by name; a server the host
// keeps switched off comes switched off. It says in words what is wrong
// with a file that is none of these.
func ParseHostConfig(data []byte) ([]HostEntry, error) {
	if len(data) > MaxHostConfig {
		return nil, fmt.Errorf("%w: the file is over 4 MiB: not an MCP host's configuration", ErrBadServer)
	}
	var doc struct {
		MCPServers map[string]hostEntry `json:"mcpServers"`
		Servers    map[string]hostEntry `json:"servers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: not an MCP host's JSON (%v): LM Studio's mcp.json, Claude Desktop's and Jan's files hold {\"mcpServers\": {...}}", ErrBadServer, err)
	}
	entries := doc.MCPServers
	if entries == nil {
		entries = doc.Servers
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("%w: the file names no MCP server (it has no \"mcpServers\" or \"servers\" entries)", ErrBadServer)
	}
	out := make([]HostEntry, 0, len(entries))
	for n, e := range entries {
		s := Server{Name: HostName(n), URL: e.URL, Off: e.Disabled || (e.Active != nil && !*e.Active)}
		if s.URL == "" {
			s.URL = e.ServerURL
		}
		if e.Command != "" {
			s.Command = append([]string{e.Command}, e.Args...)
		}
		keys := make([]string, 0, len(e.Env))
		for k := range e.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			s.Env = append(s.Env, k+"="+e.Env[k])
		}
		out = append(out, HostEntry{Name: n, Server: s})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// HostName is another host's server name as rehome names servers:
// lower case, other characters as dashes, at most 24.
func HostName(n string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(n) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > 24 {
		s = strings.Trim(s[:24], "-")
	}
	return s
}

// Host is an MCP host rehome knows: where it keeps its servers, and
// under which key.
type Host struct {
	// ID is the host's short name (lmstudio, claude, jan, vscode); Label
	// the name people know it by.
	ID, Label string
	// Key holds the servers: "mcpServers", or VS Code's "servers";
	// Typed: each entry says "type": "stdio".
	Key   string
	Typed bool
	rel   []string
}

// Hosts are the MCP hosts rehome knows, in the order the UI lists them.
var Hosts = []Host{
	{ID: "lmstudio", Label: "LM Studio", Key: "mcpServers", rel: []string{".lmstudio", "mcp.json"}},
	{ID: "claude", Label: "Claude Desktop", Key: "mcpServers", rel: []string{".config", "Claude", "claude_desktop_config.json"}},
	{ID: "jan", Label: "Jan", Key: "mcpServers", rel: []string{".config", "Jan", "data", "mcp_config.json"}},
	{ID: "vscode", Label: "VS Code", Key: "servers", Typed: true, rel: []string{".config", "Code", "User", "mcp.json"}},
}

// File is where h keeps its servers under the home folder home.
func (h Host) File(home string) string { return filepath.Join(append([]string{home}, h.rel...)...) }

// HostByID is the known host id names.
func HostByID(id string) (Host, bool) {
	for _, h := range Hosts {
		if h.ID == id {
			return h, true
		}
	}
	return Host{}, false
}
