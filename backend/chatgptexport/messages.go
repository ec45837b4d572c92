package chatgptexport

import (
	"encoding/json"
	"strings"

	"rehome/backend/llm"
)

// Via names, in an imported conversation's cells and tool calls, where
// they ran. Its server is left empty: it was ChatGPT's, which rehome
// never calls (Source says where it came from); going on with it picks a
// local model.
const Via = "chatgpt"

// maxFed bounds what a tool's result keeps (a browsing page, a search).
const maxFed = 8 << 10

// builder turns the messages of one branch, root first, into rehome's
// exchanges: a question, the turns the GPT took (its words, the code it
// ran with its output, the other tools it called) and its answer.
type builder struct {
	out       []llm.Transcript
	sigs      []string // the last node of each exchange
	reasoning strings.Builder
	assets    *assetSet
	skipped   map[string]int // content types left out, by kind
	hidden    int
}

// hiddenTypes are content ChatGPT never shows: the user's and the model's
// custom instructions and memory, the system prompt.
var hiddenTypes = map[string]bool{"user_editable_context": true, "model_editable_context": true}

func (b *builder) add(id string, m *message) {
	if m == nil {
		return
	}
	role, ct := string(m.Author.Role), string(m.Content.Type)
	if role == "system" || bool(m.Metadata.Hidden) || bool(m.Metadata.UserSystem) || hiddenTypes[ct] {
		b.hidden++
		return
	}
	switch role {
	case "user":
		b.user(m)
	case "assistant":
		b.assistant(m)
	case "tool":
		b.tool(m)
	default:
		b.skipped["messages from "+role]++
		return
	}
	if n := len(b.sigs); n > 0 {
		b.sigs[n-1] = id
	}
}

// exchange is the one being filled, started (without a question) when
// the GPT speaks first.
func (b *builder) exchange(m *message) *llm.Transcript {
	if len(b.out) == 0 {
		b.start(m, "")
	}
	return &b.out[len(b.out)-1]
}

func (b *builder) start(m *message, question string) *llm.Transcript {
	b.out = append(b.out, llm.Transcript{Question: question, Mode: Via, Turns: []llm.Turn{}, Files: []llm.OutFile{},
		Started: m.CreateTime.Time()})
	b.sigs = append(b.sigs, "")
	return &b.out[len(b.out)-1]
}

func (b *builder) user(m *message) {
	words, files := b.parts(m.Content)
	if words == "" && string(m.Content.Text) != "" {
		words = string(m.Content.Text)
	}
	t := b.start(m, words)
	t.Attachments = append(files, b.attachments(m.Metadata.Attachments, files)...)
}

func (b *builder) assistant(m *message) {
	t := b.exchange(m)
	if s := string(m.Metadata.ModelSlug); s != "" {
		t.Model = s
	}
	rcpt := string(m.Recipient)
	switch ct := string(m.Content.Type); ct {
	case "thoughts":
		for _, th := range m.Content.Thoughts {
			b.think(string(th.Summary), string(th.Content))
		}
	case "reasoning_recap":
		// "Thought for 7s": the thinking itself came before.
	case "code":
		code := string(m.Content.Text)
		if rcpt == "python" || (rcpt != "all" && rcpt != "" && string(m.Content.Language) == "python" && !strings.Contains(rcpt, ".")) {
			t.Turns = append(t.Turns, llm.Turn{Reasoning: b.takeReasoning(), Cells: []llm.Cell{{Code: code, Via: Via, Result: llm.CellResult{Files: []llm.OutFile{}}}}})
			return
		}
		b.toolCall(t, rcpt, code)
	case "text", "multimodal_text":
		words, files := b.parts(m.Content)
		if rcpt != "all" && rcpt != "" {
			b.toolCall(t, rcpt, words)
			return
		}
		cites := citations(m.Metadata)
		t.Turns = append(t.Turns, llm.Turn{Text: words, Reasoning: b.takeReasoning(), Citations: cites})
		t.Answer, t.Citations, t.Stopped = words, cites, llm.StopAnswered
		t.Files = append(t.Files, files...)
	default:
		b.skipped[ct]++
	}
}

func (b *builder) toolCall(t *llm.Transcript, name, args string) {
	t.Turns = append(t.Turns, llm.Turn{Reasoning: b.takeReasoning(), Tools: []llm.ToolUse{{Name: name, Via: Via, Arguments: args}}})
}

func (b *builder) think(summary, body string) {
	if b.reasoning.Len() > 0 {
		b.reasoning.WriteString("\n\n")
	}
	if summary != "" {
		b.reasoning.WriteString("**" + summary + "**\n")
	}
	b.reasoning.WriteString(body)
}

func (b *builder) takeReasoning() string {
	s := b.reasoning.String()
	b.reasoning.Reset()
	return s
}

// tool is what a tool gave back: Code Interpreter's output goes to the
// cell that ran, anything else to the call it answers.
func (b *builder) tool(m *message) {
	t := b.exchange(m)
	ct := string(m.Content.Type)
	if ct == "execution_output" || string(m.Author.Name) == "python" {
		if c := lastCell(t); c != nil {
			b.output(t, c, m)
			return
		}
	}
	words, files := b.parts(m.Content)
	if words == "" {
		words = firstOf(string(m.Content.Text), string(m.Content.Result))
	}
	t.Files = append(t.Files, files...)
	if u := lastTool(t); u != nil {
		u.Fed = cutText(u.Fed+words, maxFed)
		return
	}
	if words != "" || len(files) > 0 {
		t.Turns = append(t.Turns, llm.Turn{Tools: []llm.ToolUse{{Name: firstOf(string(m.Author.Name), "tool"), Via: Via, Fed: cutText(words, maxFed)}}})
	}
}

// output fills a cell with what ChatGPT's Python printed, its error and
// the plots it made.
func (b *builder) output(t *llm.Transcript, c *llm.Cell, m *message) {
	words, _ := b.parts(m.Content)
	out := firstOf(string(m.Content.Text), words)
	c.Result.Stdout += out
	var agg struct {
		Status    text `json:"status"`
		Exception *struct {
			Name      text   `json:"name"`
			Traceback []text `json:"traceback"`
		} `json:"in_kernel_exception"`
		Messages []struct {
			Type  text `json:"message_type"`
			Image text `json:"image_url"`
		} `json:"messages"`
	}
	if len(m.Metadata.AggregateResult) > 0 && json.Unmarshal(m.Metadata.AggregateResult, &agg) == nil {
		if s := string(agg.Status); s != "" && s != "success" {
			c.Result.ExitCode = 1
			c.Result.Summary = "ChatGPT: " + s
		}
		if agg.Exception != nil {
			var tb strings.Builder
			for _, l := range agg.Exception.Traceback {
				tb.WriteString(string(l))
			}
			c.Result.Stderr = tb.String()
			c.Result.ExitCode = 1
		}
		for _, msg := range agg.Messages {
			if string(msg.Type) != "image" {
				continue
			}
			if id := assetID(string(msg.Image)); id != "" {
				f := b.assets.want(id, "plot", 0)
				c.Result.Files = append(c.Result.Files, f)
				t.Files = append(t.Files, f)
			}
		}
	}
	c.Fed = cutText(c.Result.Stdout+c.Result.Stderr, maxFed)
}

func lastCell(t *llm.Transcript) *llm.Cell {
	for i := len(t.Turns) - 1; i >= 0; i-- {
		if cs := t.Turns[i].Cells; len(cs) > 0 {
			return &t.Turns[i].Cells[len(cs)-1]
		}
		if t.Turns[i].Text != "" {
			return nil
		}
	}
	return nil
}

func lastTool(t *llm.Transcript) *llm.ToolUse {
	if n := len(t.Turns); n > 0 {
		if us := t.Turns[n-1].Tools; len(us) > 0 {
			return &t.Turns[n-1].Tools[len(us)-1]
		}
	}
	return nil
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
