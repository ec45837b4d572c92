package mcphost

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func jsonRaw(b []byte) any { return json.RawMessage(b) }

// render is a tool's result as the model reads it: its text, what else
// came named in words, within max characters.
func render(res *mcp.CallToolResult, max int) string {
	var b strings.Builder
	for _, c := range res.Content {
		switch v := c.(type) {
		case *mcp.TextContent:
			b.WriteString(v.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(&b, "[an image, %s, %d bytes: not shown to the model]", v.MIMEType, len(v.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(&b, "[audio, %s: not played]", v.MIMEType)
		case *mcp.ResourceLink:
			fmt.Fprintf(&b, "[link: %s %s]", v.Name, v.URI)
		case *mcp.EmbeddedResource:
			if v.Resource != nil && v.Resource.Text != "" {
				b.WriteString(v.Resource.Text)
			} else if v.Resource != nil {
				fmt.Fprintf(&b, "[a resource, %s: not shown]", v.Resource.URI)
			}
		}
		b.WriteString("\n")
		if b.Len() > max {
			break
		}
	}
	if len(res.Content) == 0 && res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		b.Write(data)
	}
	s := strings.TrimSpace(b.String())
	if len(s) > max {
		s = s[:max] + fmt.Sprintf("\n(the result was cut at %d characters)", max)
	}
	return s
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
