package app

import (
	"fmt"
	"strings"

	"rehome/backend/core"
	"rehome/backend/mcphost"
)

// Settings → MCP and the assistant editor's MCP servers: each method one
// call of core.MCPServers, as `rehome mcp` makes them.
//
// A stdio server is a program rehome runs on this machine as the user, so
// the page alone cannot add one (the bridge is reachable by whatever
// holds its token, and the window's page is only as safe as what it
// renders): the window asks in a dialog of its own (GTK's, outside the
// page), and the browser bridge, which has none, refuses
// (ErrMCPCommandNeedsWindow) and says to add it in the window or the
// terminal. A server at a URL is reached with the actions' guards and
// can be added from either.

// MCPOverview lists every assistant with its MCP servers, their state and
// the tools last listed.
func (svc *SystemService) MCPOverview() ([]core.MCPAssistantServers, error) {
	a := svc.app
	v, err := a.core.MCPServers().Overview()
	return v, uiError(err)
}

// MCPServersOf lists one assistant's MCP servers (the assistant editor).
func (svc *SystemService) MCPServersOf(assistantID string) ([]core.MCPServerView, error) {
	a := svc.app
	v, err := a.core.MCPServers().Views(assistantID)
	return v, uiError(err)
}

// AddMCPServer adds a server to an assistant: a stdio command (confirmed
// in the window's own dialog; refused in a browser) or a URL.
func (svc *SystemService) AddMCPServer(assistantID string, s mcphost.Server) error {
	a := svc.app
	return uiError(a.core.MCPServers().AddConfirmed(assistantID, s, a.confirmCommands))
}

// TestMCPServer connects to a server and lists its tools with how each
// call is confirmed; a server that does not connect is an error in words.
func (svc *SystemService) TestMCPServer(assistantID, name string) (core.MCPServerView, error) {
	a := svc.app
	v, err := a.core.MCPServers().Check(a.ctx, assistantID, name)
	return v, uiError(err)
}

// RemoveMCPServer removes a server from an assistant (its process ends).
func (svc *SystemService) RemoveMCPServer(assistantID, name string) error {
	a := svc.app
	return uiError(a.core.MCPServers().Remove(assistantID, name))
}

// SetMCPServerOn switches a server's tools on or off for the assistant.
func (svc *SystemService) SetMCPServerOn(assistantID, name string, on bool) error {
	a := svc.app
	return uiError(a.core.MCPServers().SetOn(assistantID, name, on))
}

// SetMCPToolAlwaysAllow keeps or takes back "Always allow" for a tool.
func (svc *SystemService) SetMCPToolAlwaysAllow(assistantID, server, tool string, allow bool) error {
	a := svc.app
	return uiError(a.core.MCPServers().SetAlwaysAllow(assistantID, server, tool, allow))
}

// MCPHostFiles lists the MCP hosts rehome knows (LM Studio, Claude
// Desktop, Jan, VS Code) and whether each keeps its file on this machine.
func (svc *SystemService) MCPHostFiles() ([]core.MCPHostFile, error) {
	a := svc.app
	v, err := a.core.MCPServers().HostFiles()
	return v, uiError(err)
}

// PreviewMCPImport lists the servers of another host's file (its text,
// or a known host's file) without adding any; the values of their
// environment never come back.
func (svc *SystemService) PreviewMCPImport(from core.MCPSource) ([]core.MCPImportEntry, error) {
	a := svc.app
	v, err := a.core.MCPServers().Preview(from)
	return v, uiError(err)
}

// ImportMCPServers adds the servers picked (only; none: all) of another
// host's file to an assistant. Its stdio servers are confirmed as
// AddMCPServer's are.
func (svc *SystemService) ImportMCPServers(assistantID string, from core.MCPSource, only []string) (core.MCPImportResult, error) {
	a := svc.app
	r, err := a.core.MCPServers().Import(assistantID, from, only, a.confirmCommands)
	return r, uiError(err)
}

// confirmCommands asks the user, in the window's own dialog, whether
// rehome may run the stdio servers of list for the assistant named
// assistant; nil when list has none (a core.MCPConfirm). The browser bridge cannot ask: ErrMCPCommandNeedsWindow.
func (a *App) confirmCommands(assistant string, list []mcphost.Server) error {
	var lines []string
	for _, s := range list {
		if len(s.Command) == 0 {
			continue
		}
		line := "  " + s.Name + ": " + strings.Join(s.Command, " ")
		if len(s.Env) > 0 {
			var names []string
			for _, kv := range s.Env {
				k, _, _ := strings.Cut(kv, "=")
				names = append(names, k)
			}
			line += "\n    with " + strings.Join(names, ", ") + " set"
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return nil
	}
	conf, ok := a.window().(HostConfirmer)
	if !ok {
		return ErrMCPCommandNeedsWindow
	}
	msg := fmt.Sprintf("Let rehome run these programs on this computer, as you, for %s?\n\n%s\n\nrehome starts each with a clean environment in a folder of its own, and the model calls its tools under ChatGPT's confirmation rule. Say Yes only if you trust these programs.",
		assistant, strings.Join(lines, "\n"))
	yes, err := conf.ConfirmDialog("Add an MCP server", msg)
	if err != nil {
		return fmt.Errorf("the MCP server was not added: the window's dialog failed (%v)", err)
	}
	if !yes {
		return ErrMCPNotConfirmed
	}
	a.log.Info("MCP server command confirmed in the window", "assistant", assistant, "servers", len(lines))
	return nil
}
