package audit

import (
	"fmt"
	"strings"
)

// MCPServer is one MCP server an assistant uses in rehome (added in
// Settings → MCP or with `rehome mcp add`), as the audit counts it. It is
// not a feature of the GPT: rehome adds it, so it never changes the
// verdict, only says what the assistant has here.
type MCPServer struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // "stdio" or "http"
	// Host is an HTTP server's host name ("" for stdio).
	Host string `json:"host,omitempty"`
	// Tools is how many tools it offered when last listed; -1 when it
	// was never listed (or did not connect).
	Tools int  `json:"tools"`
	Off   bool `json:"off,omitempty"`
}

// MCPTools is what the audit says of an assistant's MCP servers.
type MCPTools struct {
	Category Category `json:"category"`
	Label    string   `json:"label"`
	// Headline counts them: "12 tools from 2 MCP servers".
	Headline string `json:"headline"`
	Reason   string `json:"reason"`
	// Caveats say what does not hold: a server off the network, one not
	// listed yet, one switched off.
	Caveats []string    `json:"caveats"`
	Servers []MCPServer `json:"servers"`
}

// mcpTools is the audit's word on s's MCP servers (nil: it has none).
// Every server is hosted by rehome (a stdio program it starts on this
// machine, or an HTTP endpoint it reaches with the actions' guards),
// unless the machine is air-gapped and a server is on the internet: that
// one you run somewhere it can reach.
func mcpTools(s Subject, req Request) *MCPTools {
	if len(s.MCP) == 0 {
		return nil
	}
	m := &MCPTools{Category: Hosts, Caveats: []string{}, Servers: s.MCP}
	on, tools, unlisted := 0, 0, 0
	var remote, off, untested []string
	for _, srv := range s.MCP {
		switch {
		case srv.Off:
			off = append(off, srv.Name)
			continue
		case srv.Tools < 0:
			unlisted++
			untested = append(untested, srv.Name)
		default:
			tools += srv.Tools
		}
		on++
		if srv.Kind == "http" && srv.Host != "" && !isLocalHost(srv.Host) {
			remote = append(remote, fmt.Sprintf("%s (%s)", srv.Name, srv.Host))
		}
	}
	m.Headline = fmt.Sprintf("%s from %s", plural(tools, "tool"), plural(on, "MCP server"))
	if unlisted > 0 {
		m.Headline = fmt.Sprintf("%s from %s (%d not listed yet)", plural(tools, "tool"), plural(on, "MCP server"), unlisted)
	}
	if on == 0 {
		m.Headline = fmt.Sprintf("%s, all switched off: the model gets none of their tools", plural(len(s.MCP), "MCP server"))
	}
	m.Reason = "rehome starts each program on this machine (a clean environment, a folder of its own) and reaches each URL with the actions' guards; a call asks you first unless the server marks the tool read-only, and every time if it marks it destructive."
	if len(remote) > 0 {
		list := strings.Join(remote, ", ")
		switch {
		case req.AirGapped:
			m.Category = Rebuild
			m.Caveats = append(m.Caveats, "On the internet, so an air-gapped machine cannot reach it: "+list+". Run that server on this machine (stdio) or on your network, then add it again.")
		case req.DataMustStayLocal:
			m.Caveats = append(m.Caveats, "The arguments the model sends its tools leave this machine: "+list+". Run that server here if the data must stay local.")
		default:
			m.Caveats = append(m.Caveats, "Reached over the internet: "+list+"; it needs the network at run time.")
		}
	}
	if len(untested) > 0 {
		m.Caveats = append(m.Caveats, "Not listed yet, so its tools are not counted: "+strings.Join(untested, ", ")+" (press Test in Settings → MCP, or `rehome mcp test`).")
	}
	if len(off) > 0 {
		m.Caveats = append(m.Caveats, "Switched off, its tools not offered: "+strings.Join(off, ", ")+".")
	}
	m.Label = m.Category.Label()
	return m
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
