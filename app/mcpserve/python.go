package mcpserve

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"rehome/backend/core"
)

// session is what one MCP session holds: per assistant its python
// executor (a sandbox session that keeps its variables) and the files the
// client sent for it.
type session struct {
	id      string
	python  map[string]*core.PythonSession
	uploads map[string][]string
}

// state is ss's session, made at its first python or upload call; its
// sandbox sessions and files go when the MCP session ends.
func (s *Server) state(ss *mcp.ServerSession) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.sessions[ss]; st != nil {
		return st
	}
	b := make([]byte, 8)
	rand.Read(b)
	st := &session{id: "s" + hex.EncodeToString(b), python: map[string]*core.PythonSession{}, uploads: map[string][]string{}}
	s.sessions[ss] = st
	if ss != nil {
		go func() {
			ss.Wait()
			s.end(ss)
		}()
	}
	return st
}

func (s *Server) end(ss *mcp.ServerSession) {
	s.mu.Lock()
	st := s.sessions[ss]
	delete(s.sessions, ss)
	if st != nil {
		s.ending.Add(1)
	}
	s.mu.Unlock()
	if st == nil {
		return
	}
	defer s.ending.Done()
	for _, x := range st.python {
		x.Close(context.Background())
	}
	s.opts.MCP.EndSession(st.id)
}

func (s *Server) closeAll() {
	s.mu.Lock()
	var all []*mcp.ServerSession
	for ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	for _, ss := range all {
		s.end(ss)
	}
	s.ending.Wait() // and those a disconnect began: their files are gone when it returns
}

func pythonTool(e *entry) *mcp.Tool {
	var files []string
	for _, f := range e.a.Knowledge {
		files = append(files, f.Name)
	}
	d := "Runs Python 3 in " + e.a.Name + "'s Code Interpreter: rehome's sandbox on this machine, with no network, under the saved time and memory limits. Variables persist between calls of one MCP session. "
	if len(files) > 0 {
		d += "Its knowledge files are at /mnt/data (" + strings.Join(files, ", ") + "). "
	}
	d += "Send other files first with " + e.prefix + "upload_file. pandas, numpy, matplotlib and seaborn are installed; plots come back as images."
	no := false
	return &mcp.Tool{Name: e.prefix + "python", Description: d,
		InputSchema: map[string]any{"type": "object", "required": []string{"code"},
			"properties": map[string]any{"code": map[string]any{"type": "string", "description": "The Python code to run."}}},
		Annotations: &mcp.ToolAnnotations{Title: "Run Python (" + e.a.Name + ")", DestructiveHint: &no, OpenWorldHint: &no}}
}

func uploadTool(e *entry) *mcp.Tool {
	no := false
	return &mcp.Tool{Name: e.prefix + "upload_file",
		Description: "Puts a file at /mnt/data/NAME for " + e.prefix + "python (at most 64 MiB, 16 files a session). The python session starts again with it: variables are lost, files stay.",
		InputSchema: map[string]any{"type": "object", "required": []string{"name", "content_base64"},
			"properties": map[string]any{
				"name":           map[string]any{"type": "string", "description": "A plain file name, such as sales.csv."},
				"content_base64": map[string]any{"type": "string", "description": "The file's bytes, base64."}}},
		Annotations: &mcp.ToolAnnotations{Title: "Send a file to python (" + e.a.Name + ")", DestructiveHint: &no, OpenWorldHint: &no}}
}

func errResult(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

func (s *Server) callUpload(e *entry) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Name    string `json:"name"`
			Content string `json:"content_base64"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return errResult("call %supload_file with {\"name\": \"data.csv\", \"content_base64\": \"...\"}", e.prefix), nil
		}
		if base64.StdEncoding.DecodedLen(len(in.Content)) > MaxMessage {
			return errResult("%s is larger than 64 MiB, the most one file may be", in.Name), nil
		}
		data, err := base64.StdEncoding.DecodeString(in.Content)
		if err != nil {
			return errResult("content_base64 is not base64: %v", err), nil
		}
		st := s.state(req.Session)
		s.mu.Lock()
		defer s.mu.Unlock()
		p, err := s.opts.MCP.Upload(st.id, in.Name, data)
		if err != nil {
			return errResult("%v", err), nil
		}
		st.uploads[e.a.ID] = append(st.uploads[e.a.ID], p)
		if x := st.python[e.a.ID]; x != nil {
			delete(st.python, e.a.ID) // the next call starts with the file
			go x.Close(context.Background())
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("/mnt/data/%s is there (%d bytes) for the next python call.", in.Name, len(data))}}}, nil
	}
}

func (s *Server) executor(ctx context.Context, ss *mcp.ServerSession, e *entry) (*core.PythonSession, error) {
	st := s.state(ss)
	s.mu.Lock()
	defer s.mu.Unlock()
	if x := st.python[e.a.ID]; x != nil {
		return x, nil
	}
	x, err := s.opts.MCP.Python(ctx, e.a, st.uploads[e.a.ID])
	if err != nil {
		return nil, err
	}
	st.python[e.a.ID] = x
	return x, nil
}

// maxImage is the most bytes of one plot sent back inline.
const maxImage = 8 << 20

func (s *Server) callPython(e *entry) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Code string `json:"code"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || strings.TrimSpace(in.Code) == "" {
			return errResult("call %spython with {\"code\": \"print(1)\"}", e.prefix), nil
		}
		x, err := s.executor(ctx, req.Session, e)
		if err != nil {
			return errResult("the sandbox could not start: %v", err), nil
		}
		r, err := x.Exec(ctx, in.Code)
		if err != nil {
			return errResult("the cell could not run: %v", err), nil
		}
		s.log.Info("mcp python", "assistant", e.a.ID, "session", r.SessionID, "cell", r.Cell, "exit", r.ExitCode)
		return cellResult(r), nil
	}
}

// cellResult is a cell as the client reads it: what it printed, why it
// ended, its plots as images and the files it wrote by name.
func cellResult(r core.AnswerCellResult) *mcp.CallToolResult {
	var b strings.Builder
	if r.StateLost != "" {
		b.WriteString("(" + r.StateLost + ")\n")
	}
	if r.Stdout != "" {
		b.WriteString(r.Stdout)
	}
	if r.Stderr != "" {
		b.WriteString("\n[stderr]\n" + r.Stderr)
	}
	switch {
	case r.TimedOut:
		b.WriteString("\n(stopped at the time limit)")
	case r.OOMKilled:
		b.WriteString("\n(stopped: out of memory)")
	case r.ExitCode != 0:
		fmt.Fprintf(&b, "\n(exit code %d)", r.ExitCode)
	}
	for _, n := range r.Notes {
		b.WriteString("\n(" + n + ")")
	}
	res := &mcp.CallToolResult{IsError: r.ExitCode != 0 || r.TimedOut || r.OOMKilled}
	var files []string
	for _, f := range r.Files {
		if f.Kind == "plot" && f.Size <= maxImage && strings.HasSuffix(strings.ToLower(f.Name), ".png") {
			if data, err := os.ReadFile(f.Path); err == nil {
				res.Content = append(res.Content, &mcp.ImageContent{Data: data, MIMEType: "image/png"})
				continue
			}
		}
		files = append(files, fmt.Sprintf("%s (%d bytes)", f.Name, f.Size))
	}
	if len(files) > 0 {
		b.WriteString("\nFiles written: " + strings.Join(files, ", ") + " (kept by rehome with the session's cells).")
	}
	text := strings.TrimSpace(b.String())
	if text == "" {
		text = "(the cell printed nothing)"
	}
	res.Content = append([]mcp.Content{&mcp.TextContent{Text: text}}, res.Content...)
	return res
}
