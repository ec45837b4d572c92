package app

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"rehome/backend/atomicfile"
)

// ConversationExport is a conversation written out in one format: the
// file's name and text (the browser downloads it), or where the window
// wrote it.
type ConversationExport struct {
	Name string `json:"name"` // the file name offered ("Sales by region.md")
	Text string `json:"text,omitempty"`
	Path string `json:"path,omitempty"` // where it was written (the window)
}

// exportFormats are the formats a conversation is exported in, by id:
// the file's extension.
var exportFormats = map[string]string{"md": ".md", "ipynb": ".ipynb", "json": ".json"}

// RenderConversation returns a conversation in format ("md": Markdown,
// "ipynb": a Jupyter notebook, "json": the record as rehome keeps it) with
// the file name to offer, for the browser to download.
func (svc *AskService) RenderConversation(id, format string) (ConversationExport, error) {
	a := svc.app
	ext, ok := exportFormats[format]
	if !ok {
		return ConversationExport{}, fmt.Errorf("%q is not an export format: choose md (Markdown), ipynb (Jupyter notebook) or json", format)
	}
	c, err := a.GetConversation(id)
	if err != nil {
		return ConversationExport{}, err
	}
	var text string
	switch format {
	case "json":
		data, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			return ConversationExport{}, err
		}
		text = string(data) + "\n"
	default:
		if text, err = a.ExportConversation(id, format); err != nil {
			return ConversationExport{}, err
		}
	}
	title := strings.TrimSpace(c.Title)
	if title == "" {
		title = "conversation"
	}
	return ConversationExport{Name: CleanFileName(title) + ext, Text: text}, nil
}

// SaveConversation writes a conversation in format to path, which the
// user chose in the window's Save dialog (ChooseSavePath), and says where.
func (svc *AskService) SaveConversation(id, format, path string) (ConversationExport, error) {
	a := svc.app
	dst, err := a.writable(path)
	if err != nil {
		return ConversationExport{}, err
	}
	out, err := a.RenderConversation(id, format)
	if err != nil {
		return ConversationExport{}, err
	}
	if err := atomicfile.Write(dst, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, out.Text)
		return err
	}); err != nil {
		return ConversationExport{}, fmt.Errorf("write %s: %w (pick a folder you can write to)", filepath.Base(dst), err)
	}
	a.log.Info("conversation exported", "id", id, "format", format, "to", dst)
	return ConversationExport{Name: filepath.Base(dst), Path: dst}, nil
}
