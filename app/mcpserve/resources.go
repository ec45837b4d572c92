package mcpserve

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"rehome/backend/core"
)

// The resources' URIs: rehome://knowledge/<assistant id>/<file name>.
const scheme = "rehome://knowledge/"

func knowledgeURI(assistantID, name string) string {
	return scheme + assistantID + "/" + url.PathEscape(name)
}

// maxResource is the most bytes of a knowledge file one read returns.
const maxResource = 16 << 20

func mimeOf(name string) string {
	if t := mime.TypeByExtension(strings.ToLower(filepath.Ext(name))); t != "" {
		return t
	}
	return "application/octet-stream"
}

func (s *Server) addResources(e *entry) {
	for _, f := range e.a.Knowledge {
		f := f
		s.srv.AddResource(&mcp.Resource{URI: knowledgeURI(e.a.ID, f.Name), Name: f.Name,
			Description: "A knowledge file of " + e.a.Name, MIMEType: mimeOf(f.Name), Size: f.Size},
			func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				p, err := s.opts.MCP.KnowledgePath(e.a, f.Name)
				if err != nil {
					return nil, mcp.ResourceNotFoundError(req.Params.URI)
				}
				data, err := readBounded(p, maxResource)
				if err != nil {
					return nil, err
				}
				c := &mcp.ResourceContents{URI: req.Params.URI, MIMEType: mimeOf(f.Name)}
				if strings.HasPrefix(c.MIMEType, "text/") || c.MIMEType == "application/json" {
					c.Text = string(data)
				} else {
					c.Blob = data
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
			})
	}
}

func readBounded(p string, max int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d MiB, the most one read returns: ask file_search for its passages", filepath.Base(p), max>>20)
	}
	return data, nil
}

// citationLink is a passage's source as a link to its file.
func citationLink(a *core.MCPAssistant, c core.Citation) mcp.Content {
	title := fmt.Sprintf("[%d] %s", c.N, c.File)
	switch {
	case c.Page > 0 && c.PageEnd > c.Page:
		title += fmt.Sprintf(", pages %d–%d", c.Page, c.PageEnd)
	case c.Page > 0:
		title += fmt.Sprintf(", page %d", c.Page)
	case c.Section != "":
		title += ", " + c.Section
	}
	return &mcp.ResourceLink{URI: knowledgeURI(a.ID, c.File), Name: c.File, Title: title, Description: oneLine(c.Quote), MIMEType: mimeOf(c.File)}
}

// addPrompt offers the assistant's instructions, as an MCP prompt the
// client's user picks to talk to it; its starters are the description.
func (s *Server) addPrompt(e *entry) {
	name := strings.TrimSuffix(e.prefix, "_")
	if name == "" {
		name = "assistant"
	}
	desc := e.a.Name
	if e.a.Description != "" {
		desc += ": " + oneLine(e.a.Description)
	}
	if len(e.a.Starters) > 0 {
		desc += " Starters: " + strings.Join(e.a.Starters, " · ")
	}
	s.srv.AddPrompt(&mcp.Prompt{Name: name, Title: e.a.Name, Description: desc,
		Arguments: []*mcp.PromptArgument{{Name: "question", Description: "What to ask (a starter, or your own)"}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			text := "You are " + e.a.Name + ". Follow these instructions:\n\n" + e.a.Instructions
			if len(e.a.Knowledge) > 0 || len(e.a.Tools) > 0 {
				text += "\n\nUse the tools named " + e.prefix + "* (file_search for the knowledge files, python to run code, the actions) where they help; cite passages as [n]."
			}
			msgs := []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}
			if q := strings.TrimSpace(req.Params.Arguments["question"]); q != "" {
				msgs = append(msgs, &mcp.PromptMessage{Role: "user", Content: &mcp.TextContent{Text: q}})
			}
			return &mcp.GetPromptResult{Description: desc, Messages: msgs}, nil
		})
}
