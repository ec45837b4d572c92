package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rehome/backend/actions"
	"rehome/backend/atomicfile"
	"rehome/backend/knowledge"
	"rehome/backend/llm"
	"rehome/backend/llm/sandboxexec"
	"rehome/sandbox"
)

// MCPDir holds, per MCP session, the files an MCP client sent for the
// python tool (<data>/mcp/<session>/); they go with the session.
const MCPDir = "mcp"

// MCP is what `rehome mcp serve` offers an MCP client of an assistant:
// the same tools the ask loop gives a model (file_search, the actions,
// python), its instructions and starters, its knowledge files. The
// server face (app/mcpserve) only translates them to the protocol.
type MCP struct{ c *Core }

// MCP is the MCP service.
func (c *Core) MCP() *MCP { return &MCP{c: c} }

// MCPAssistant is one assistant as an MCP client sees it.
type MCPAssistant struct {
	ID, Name, Description, Instructions string
	Starters                            []string
	// Tools are file_search and the actions, each with its hints.
	Tools []llm.LoopTool
	// Knowledge are the assistant's indexed files, and Mounts the library's
	// copies of its files the python tool sees at /mnt/data.
	Knowledge []knowledge.File
	Mounts    []string
	// Notes say what was left out, in words.
	Notes []string
}

// Assistant is the assistant ref names (an id, a name or a unique
// prefix, as `rehome knowledge` takes it) with its tools; consequential
// calls go through confirm (nil: declined, and the client is told).
func (m *MCP) Assistant(ref string, confirm actions.Confirm) (*MCPAssistant, error) {
	k := m.c.Knowledge()
	a, err := m.c.ResolveAssistant(ref)
	if err != nil {
		return nil, err
	}
	out := &MCPAssistant{ID: a.ID, Name: a.Name, Description: a.Description, Instructions: a.Instructions, Starters: a.Starters}
	if t, ok := k.Tool(a.ID); ok {
		t.Hints = &llm.ToolHints{ReadOnly: true, Title: "Search " + a.Name + "'s knowledge"}
		out.Tools = append(out.Tools, t)
	}
	acts, notes, err := m.c.Actions().Tools(a.ID, confirm)
	if err != nil {
		return nil, err
	}
	out.Tools = append(out.Tools, acts...)
	out.Notes = append(out.Notes, notes...)
	if files, err := k.List(a.ID); err == nil {
		for _, f := range files {
			if f.State == knowledge.StateIndexed {
				out.Knowledge = append(out.Knowledge, f)
			}
		}
	}
	mounts, refused := m.c.assistants.Library().Mounts(a)
	out.Mounts, out.Notes = mounts, append(out.Notes, refused...)
	return out, nil
}

// KnowledgePath is the library's copy of the assistant's knowledge file
// name (as listed), for an MCP resource read; never another path.
func (m *MCP) KnowledgePath(a *MCPAssistant, name string) (string, error) {
	for _, f := range a.Knowledge {
		if f.Name == name {
			for _, p := range a.Mounts {
				if filepath.Base(p) == name {
					return p, nil
				}
			}
		}
	}
	return "", fmt.Errorf("%w: %q is not one of %s's knowledge files", ErrMCPNoFile, name, a.Name)
}

// MaxMCPUpload is the most one file an MCP client sends for python may
// take, and MaxMCPUploads how many one session holds.
const (
	MaxMCPUpload  = 64 << 20
	MaxMCPUploads = 16
)

// Upload keeps a file an MCP client sent for the python tool in the MCP
// session's folder, under a plain name (no folders, no dot files), and
// returns its path. The bytes are bounded by MaxMCPUpload.
func (m *MCP) Upload(session, name string, data []byte) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") || strings.ContainsAny(name, "/\\\x00") {
		return "", fmt.Errorf("%w: %q: give a plain file name such as data.csv", ErrMCPUpload, name)
	}
	if len(data) > MaxMCPUpload {
		return "", fmt.Errorf("%w: %s is %d bytes; the most is %d (64 MiB)", ErrMCPUpload, name, len(data), MaxMCPUpload)
	}
	dir, err := m.sessionDir(session)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if ents, _ := os.ReadDir(dir); len(ents) >= MaxMCPUploads {
		return "", fmt.Errorf("%w: this session holds %d files already (the most)", ErrMCPUpload, len(ents))
	}
	p := filepath.Join(dir, name)
	if err := atomicfile.WriteFile(p, data, 0o600); err != nil {
		return "", err
	}
	return p, nil
}

func (m *MCP) sessionDir(session string) (string, error) {
	if session == "" || session != filepath.Base(session) || strings.HasPrefix(session, ".") {
		return "", fmt.Errorf("%w: bad session id %q", ErrMCPUpload, session)
	}
	return filepath.Join(m.c.dir, MCPDir, session), nil
}

// Python is the python tool's executor for one MCP session: a sandbox
// session under the saved limits with the assistant's knowledge and the
// files the client sent at /mnt/data, state kept from call to call.
func (m *MCP) Python(ctx context.Context, a *MCPAssistant, uploads []string) (*sandboxexec.Session, error) {
	lim, e, err := m.c.sessionEngine(ctx, sandbox.Limits{})
	if err != nil {
		return nil, err
	}
	sessions := m.c.Sessions()
	return &sandboxexec.Session{Engine: e,
		Request: sandbox.SessionRequest{InputPaths: uniq(append(append([]string{}, a.Mounts...), uploads...)), Limits: lim},
		DirFor:  sessions.Dir,
		Done: func(code string, res *sandbox.CellResult) {
			sessions.Keep(code, res, "mcp") // a record not kept is logged
		}}, nil
}

// EndSession removes what an MCP session kept (the files sent for it).
func (m *MCP) EndSession(session string) {
	if dir, err := m.sessionDir(session); err == nil {
		os.RemoveAll(dir)
	}
}
