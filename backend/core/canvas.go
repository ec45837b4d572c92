package core

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"rehome/backend/assistant"
	"rehome/backend/atomicfile"
	"rehome/backend/canvas"
	"rehome/backend/llm"
	"rehome/backend/store"
)

// Canvas is the conversations' textdocs, the same for every face: the
// model's canvas tools in a chat (Tools), the user's edits, versions,
// diffs, restores and exports (`rehome canvas`, the window's pane).
type Canvas struct{ c *Core }

// Canvas is the canvas service.
func (c *Core) Canvas() *Canvas { return &Canvas{c: c} }

// The canvas tools' names on the wire: ChatGPT's canmore.create_textdoc,
// canmore.update_textdoc and canmore.comment_textdoc (a function name may
// not hold a dot), with their arguments.
const (
	CanvasCreate  = "create_textdoc"
	CanvasUpdate  = "update_textdoc"
	CanvasComment = "comment_textdoc"
)

// Tools are the canvas tools of conv's chat — a chat without an
// assistant, or one whose assistant has canvas on (as its GPT had): they
// change conv.Canvas, saved with the conversation.
func (cv *Canvas) Tools(conv *llm.Conversation) []llm.LoopTool {
	if conv.AssistantID != "" && cv.c.assistants != nil {
		a, err := cv.c.assistants.Get(conv.AssistantID)
		if err != nil || !slices.Contains(a.Capabilities, assistant.Canvas) {
			return nil
		}
	}
	return []llm.LoopTool{
		{Name: CanvasCreate, Description: "Creates a textdoc shown in a canvas beside the chat, for a long document or a code file the user will iterate on. Use only when the user wants such a document, or asks for the canvas.",
			Parameters: schema(map[string]any{
				"name":    map[string]any{"type": "string", "description": "A short name for the textdoc."},
				"type":    map[string]any{"type": "string", "description": `"document", or "code/LANGUAGE" such as "code/python".`},
				"content": map[string]any{"type": "string", "description": "The whole text."},
			}, "name", "type", "content"),
			Prompt: canvasPrompt(conv),
			Call:   func(_ context.Context, in llm.ToolInput) llm.ToolOutput { return canvasCreate(conv, in.Arguments) }},
		{Name: CanvasUpdate, Description: "Updates the current textdoc: each update's pattern (a regular expression) is replaced by its replacement (\\1 names a group); the pattern \".*\" rewrites the whole textdoc, as code should be. Only after create_textdoc.",
			Parameters: schema(map[string]any{"updates": map[string]any{"type": "array", "items": schema(map[string]any{
				"pattern":     map[string]any{"type": "string"},
				"multiple":    map[string]any{"type": "boolean", "description": "Replace every match (default: the first)."},
				"replacement": map[string]any{"type": "string"},
			}, "pattern", "replacement")}}, "updates"),
			Call: func(_ context.Context, in llm.ToolInput) llm.ToolOutput { return canvasUpdate(conv, in.Arguments) }},
		{Name: CanvasComment, Description: "Comments on passages of the current textdoc: each a specific, actionable suggestion on the passage its pattern finds. Only after create_textdoc.",
			Parameters: schema(map[string]any{"comments": map[string]any{"type": "array", "items": schema(map[string]any{
				"pattern": map[string]any{"type": "string"},
				"comment": map[string]any{"type": "string"},
			}, "pattern", "comment")}}, "comments"),
			Call: func(_ context.Context, in llm.ToolInput) llm.ToolOutput { return canvasComment(conv, in.Arguments) }},
	}
}

func schema(props map[string]any, required ...string) map[string]any {
	return map[string]any{"type": "object", "properties": props, "required": required}
}

// canvasPrompt tells the model what the canvas holds now (the current
// textdoc's text, cut to fit).
func canvasPrompt(conv *llm.Conversation) string {
	if len(conv.Canvas) == 0 {
		return "The canvas is empty: create_textdoc opens one."
	}
	d := conv.Canvas[len(conv.Canvas)-1]
	text := d.Content
	if len(text) > 16<<10 {
		text = text[:16<<10] + "\n… (cut)"
	}
	return fmt.Sprintf("The current textdoc (update_textdoc and comment_textdoc change it) is %q, type %s, version %d (the user may have edited it since you wrote it):\n<textdoc>\n%s\n</textdoc>",
		d.Name, d.Type, d.Versions[len(d.Versions)-1].N, text)
}

func toolArgs(raw string, v any) error {
	s := strings.TrimSpace(raw)
	var str string
	if json.Unmarshal([]byte(s), &str) == nil {
		s = str
	}
	return json.Unmarshal([]byte(s), v)
}

func canvasCreate(conv *llm.Conversation, args string) llm.ToolOutput {
	var in struct{ Name, Type, Content string }
	if err := toolArgs(args, &in); err != nil {
		return failed(`the arguments were not a JSON object: call create_textdoc with {"name": "…", "type": "document", "content": "…"}`)
	}
	if len(conv.Canvas) >= canvas.MaxDocs {
		return failed(fmt.Sprintf("the canvas holds %d textdocs, the most: update one instead", len(conv.Canvas)))
	}
	d, err := canvas.New(store.NewID(), in.Name, in.Type, in.Content, "model")
	if err != nil {
		return failed("not created: " + err.Error())
	}
	conv.Canvas = append(conv.Canvas, d)
	return llm.ToolOutput{Text: fmt.Sprintf("Created the textdoc %q (%s), shown to the user in the canvas (version 1).", d.Name, d.Type), Ref: "canvas:" + d.ID}
}

func current(conv *llm.Conversation) (*canvas.Doc, string) {
	if len(conv.Canvas) == 0 {
		return nil, "there is no textdoc yet: call create_textdoc first"
	}
	return conv.Canvas[len(conv.Canvas)-1], ""
}

func canvasUpdate(conv *llm.Conversation, args string) llm.ToolOutput {
	d, msg := current(conv)
	if d == nil {
		return failed(msg)
	}
	var in struct{ Updates []canvas.Update }
	if err := toolArgs(args, &in); err != nil {
		return failed(`the arguments were not a JSON object: call update_textdoc with {"updates": [{"pattern": ".*", "replacement": "…"}]}`)
	}
	if err := d.Apply(in.Updates, "model"); err != nil {
		return failed("not updated: " + err.Error())
	}
	return llm.ToolOutput{Text: fmt.Sprintf("Updated %q: version %d, shown to the user.", d.Name, d.Versions[len(d.Versions)-1].N), Ref: "canvas:" + d.ID}
}

func canvasComment(conv *llm.Conversation, args string) llm.ToolOutput {
	d, msg := current(conv)
	if d == nil {
		return failed(msg)
	}
	var in struct{ Comments []canvas.Comment }
	if err := toolArgs(args, &in); err != nil || len(in.Comments) == 0 {
		return failed(`call comment_textdoc with {"comments": [{"pattern": "…", "comment": "…"}]}`)
	}
	if err := d.AddComments(in.Comments); err != nil {
		return failed("not commented: " + err.Error())
	}
	return llm.ToolOutput{Text: fmt.Sprintf("%d comment(s) shown to the user beside %q.", len(in.Comments), d.Name), Ref: "canvas:" + d.ID}
}

// Docs returns a conversation's textdocs.
func (cv *Canvas) Docs(conversationID string) ([]*canvas.Doc, error) {
	if err := cv.c.Ready(); err != nil {
		return nil, err
	}
	conv, err := llm.GetConversation(cv.c.st, conversationID)
	if err != nil {
		return nil, err
	}
	if conv.Canvas == nil {
		return []*canvas.Doc{}, nil
	}
	return conv.Canvas, nil
}

// find returns the conversation and its textdoc docID ("" the current
// one).
func (cv *Canvas) find(conversationID, docID string) (*llm.Conversation, *canvas.Doc, error) {
	if err := cv.c.Ready(); err != nil {
		return nil, nil, err
	}
	conv, err := llm.GetConversation(cv.c.st, conversationID)
	if err != nil {
		return nil, nil, err
	}
	for i, x := range conv.Canvas {
		if x.ID == docID || (docID == "" && i == len(conv.Canvas)-1) {
			return conv, x, nil
		}
	}
	return nil, nil, fmt.Errorf("%w in conversation %s (see `rehome canvas show %s`)", canvas.ErrNoDoc, conversationID, conversationID)
}

// change runs fn on the textdoc docID ("" the current one) of the
// conversation and saves the conversation.
func (cv *Canvas) change(conversationID, docID string, fn func(*canvas.Doc) error) (*canvas.Doc, error) {
	// The answer in progress saves the conversation when it is done: an
	// edit now would be lost under it.
	asks := cv.c.askSvc
	asks.mu.Lock()
	busy := asks.answering[conversationID]
	asks.mu.Unlock()
	if busy {
		return nil, fmt.Errorf("the conversation is answering: edit the canvas once the answer is done")
	}
	conv, d, err := cv.find(conversationID, docID)
	if err != nil {
		return nil, err
	}
	if err := fn(d); err != nil {
		return nil, err
	}
	return d, llm.SaveConversation(cv.c.st, conv)
}

// Edit replaces a textdoc's content as the user typed it (a new version).
func (cv *Canvas) Edit(conversationID, docID, content string) (*canvas.Doc, error) {
	return cv.change(conversationID, docID, func(d *canvas.Doc) error { return d.Edit(content) })
}

// Restore makes an earlier version current (a new version).
func (cv *Canvas) Restore(conversationID, docID string, version int) (*canvas.Doc, error) {
	return cv.change(conversationID, docID, func(d *canvas.Doc) error { return d.Restore(version) })
}

// Diff is the unified diff of a textdoc from version a to b.
func (cv *Canvas) Diff(conversationID, docID string, a, b int) (string, error) {
	_, d, err := cv.find(conversationID, docID)
	if err != nil {
		return "", err
	}
	return d.Diff(a, b)
}

// Export writes each textdoc of a conversation into dir (format "" each
// its own kind, or "ipynb"), atomically, and returns the files written.
func (cv *Canvas) Export(conversationID, dir, format string) ([]string, error) {
	docs, err := cv.Docs(conversationID)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("conversation %s has no canvas: nothing to export", conversationID)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]int{}
	for _, d := range docs {
		data, err := d.Export(format)
		if err != nil {
			return out, err
		}
		name := d.FileName(format)
		if seen[name]++; seen[name] > 1 {
			ext := filepath.Ext(name)
			name = fmt.Sprintf("%s-%d%s", strings.TrimSuffix(name, ext), seen[name], ext)
		}
		p := filepath.Join(dir, name)
		if err := atomicfile.WriteFile(p, data, 0o644); err != nil {
			return out, err
		}
		out = append(out, p)
	}
	return out, nil
}
