package llm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"rehome/backend/bytesize"
	"rehome/backend/canvas"
	"rehome/backend/ipynb"
	"rehome/backend/store"
)

// ConversationSchema is the version of the Conversation record this build
// writes.
const ConversationSchema = 1

// Conversation is a kept conversation: its assistant, model, files and
// every question with its cells and answer.
// Its summary's fields come first, so that a list reads only the head of
// each record (see summary.go).
type Conversation struct {
	Schema        int       `json:"schema"`
	ID            string    `json:"id"`
	Title         string    `json:"title"`
	AssistantID   string    `json:"assistant_id,omitempty"`
	AssistantName string    `json:"assistant_name,omitempty"`
	Server        string    `json:"server"`
	Model         string    `json:"model"`
	Created       time.Time `json:"created"`
	Updated       time.Time `json:"updated"`
	// Questions is len(Exchanges), kept for the summary.
	Questions int `json:"questions"`
	// Temporary is a chat that reads and saves no memory (ChatGPT's
	// temporary chat); a question that continues it stays so.
	Temporary bool `json:"temporary,omitempty"`
	// GizmoID is the ChatGPT GPT (g-…) an imported conversation was held
	// with: it is filed under the assistant with that gizmo id, whenever
	// that assistant is imported (see core.Conversations).
	GizmoID string `json:"gizmo_id,omitempty"`
	// Source is where an imported conversation came from ("chatgpt"), ""
	// for one asked here; SourceID is its id there (the export's
	// conversation id) and SourceUpdated its last change there.
	Source        string       `json:"source,omitempty"`
	SourceID      string       `json:"source_id,omitempty"`
	SourceUpdated *time.Time   `json:"source_updated,omitempty"`
	Files         []FileInfo   `json:"files"`
	Exchanges     []Transcript `json:"exchanges"`
	// Alternatives are the other branches of an imported conversation (an
	// edited question, a regenerated answer): see imported.go.
	Alternatives []Alternative `json:"alternatives,omitempty"`
	// Notes say what an import left out or changed, in words.
	Notes []string `json:"notes,omitempty"`
	// Canvas is the textdocs shown beside the chat, each with its
	// versions (see backend/canvas).
	Canvas []*canvas.Doc `json:"canvas,omitempty"`
}

// NewConversation starts one.
func NewConversation() *Conversation {
	now := time.Now().UTC()
	return &Conversation{Schema: ConversationSchema, ID: store.NewID(), Files: []FileInfo{}, Exchanges: []Transcript{}, Created: now, Updated: now}
}

// Add appends a finished question and names the conversation after its
// first question.
func (c *Conversation) Add(t *Transcript) {
	c.Exchanges = append(c.Exchanges, *t)
	c.Questions = len(c.Exchanges)
	if c.Title == "" {
		c.Title = title(t.Question)
	}
	c.Updated = time.Now().UTC()
}

func title(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if r := []rune(q); len(r) > 80 {
		q = string(r[:79]) + "…"
	}
	return q
}

// HasCells says whether an earlier question ran code (a new session then
// starts without that code's state).
func (c *Conversation) HasCells() bool {
	for i := range c.Exchanges {
		if len(c.Exchanges[i].Cells()) > 0 {
			return true
		}
	}
	return false
}

// History is the conversation so far as messages for the next question:
// each question and its answer (the cells' outputs are not repeated).
func (c *Conversation) History() []Message {
	var out []Message
	for _, t := range c.Exchanges {
		if t.Answer == "" {
			continue
		}
		out = append(out, Message{Role: "user", Content: t.Question}, Message{Role: "assistant", Content: t.Answer})
	}
	return out
}

// SaveConversation stores c, shortened to its bounds first (see keep.go):
// a conversation that cannot be kept within MaxConversationBytes fails
// with ErrConversationFull.
func SaveConversation(st *store.Store, c *Conversation) error {
	c.Questions = len(c.Exchanges)
	if size, ok := c.fit(); !ok {
		return fmt.Errorf("%w: it holds %s, over the %s a conversation keeps; start a new conversation", ErrConversationFull,
			bytesize.Format(int64(size)), bytesize.Format(MaxConversationBytes))
	}
	if err := st.Put(store.Conversations, c.ID, c); err != nil {
		return fmt.Errorf("keep the conversation: %w", err)
	}
	return nil
}

// GetConversation loads one.
func GetConversation(st *store.Store, id string) (*Conversation, error) {
	var c Conversation
	if err := st.Get(store.Conversations, id, &c); err != nil {
		return nil, err
	}
	if c.Schema > ConversationSchema {
		return nil, fmt.Errorf("conversation %s was written by a newer rehome (schema %d): upgrade rehome", id, c.Schema)
	}
	return &c, nil
}

// Markdown writes the conversation as a Markdown document: each question,
// the model's words, its code and outputs, the plots (linked to where
// rehome saved them) and the answer; thinking folded in <details>. What
// the model, a cell or a server wrote is made safe to render (see
// mdsafe.go): nothing in it runs, and rehome's notes cannot be forged.
func (c *Conversation) Markdown() string {
	var b strings.Builder
	line := func(s string) string { return safeMarkdown(oneLine(s)) }
	fmt.Fprintf(&b, "# %s\n\n", line(orDefault(c.Title, "Conversation")))
	if c.AssistantName != "" {
		fmt.Fprintf(&b, "Assistant: %s  \n", line(c.AssistantName))
	}
	if c.Source != "" && c.Server == "" {
		fmt.Fprintf(&b, "Imported from %s (model %s)  \nStarted: %s\n\n", line(c.Source), line(c.Model), c.Created.Format(time.RFC3339))
	} else {
		fmt.Fprintf(&b, "Model: %s at %s  \nStarted: %s\n\n", line(c.Model), line(c.Server), c.Created.Format(time.RFC3339))
	}
	if len(c.Files) > 0 {
		b.WriteString("Files:\n\n")
		for _, f := range c.Files {
			fmt.Fprintf(&b, "- %s\n", line(f.Describe()))
		}
		b.WriteString("\n")
	}
	for _, t := range c.Exchanges {
		fmt.Fprintf(&b, "## %s\n\n", line(t.Question))
		for i, tu := range t.Turns {
			if tu.Reasoning != "" {
				fmt.Fprintf(&b, "<details><summary>Thinking</summary>\n\n%s\n\n</details>\n\n", safeMarkdown(strings.TrimSpace(tu.Reasoning)))
			}
			final := i == len(t.Turns)-1 && len(tu.Cells) == 0
			if s := strings.TrimSpace(tu.Text); s != "" && !final {
				b.WriteString(safeMarkdown(s) + "\n\n")
			}
			for _, cell := range tu.Cells {
				b.WriteString(codeBlock("python", strings.TrimRight(cell.Code, "\n")))
				if out := strings.TrimRight(cell.Result.Stdout+cell.Result.Stderr, "\n"); out != "" {
					b.WriteString(codeBlock("text", out))
				}
				if cell.Error != "" {
					b.WriteString(rehomeNote("the cell could not run: " + cell.Error))
				}
				for _, f := range cell.Result.Files {
					if f.Kind == "plot" {
						fmt.Fprintf(&b, "![%s](%s)\n\n", linkText.Replace(f.Name), linkDest(f.Path))
					} else {
						fmt.Fprintf(&b, "File: [%s](%s)\n\n", linkText.Replace(f.Name), linkDest(f.Path))
					}
				}
			}
		}
		if s := strings.TrimSpace(t.Answer); s != "" {
			b.WriteString(safeMarkdown(s) + "\n\n")
		}
		b.WriteString(safeMarkdown(SourcesMarkdown(t.Citations)))
		for _, n := range append(append([]string(nil), t.Cuts...), t.Note, t.Error, t.Shortened) {
			if n != "" {
				b.WriteString(rehomeNote(n))
			}
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Notebook writes the conversation as a Jupyter notebook (nbformat 4.5):
// questions and answers as Markdown cells, code cells with their outputs,
// plots embedded as PNG.
func (c *Conversation) Notebook() ([]byte, error) {
	var cells []nbCell
	n := 0
	plots := &exportPlots{left: maxExportPlots}
	head := fmt.Sprintf("Model: %s at %s", safeMarkdown(oneLine(c.Model)), safeMarkdown(oneLine(c.Server)))
	if c.Source != "" && c.Server == "" {
		head = fmt.Sprintf("Imported from %s (model %s)", safeMarkdown(oneLine(c.Source)), safeMarkdown(oneLine(c.Model)))
	}
	cells = append(cells, nbMarkdown(fmt.Sprintf("# %s\n\n%s", safeMarkdown(oneLine(orDefault(c.Title, "Conversation"))), head)))
	for _, t := range c.Exchanges {
		cells = append(cells, nbMarkdown("**Question:** "+safeMarkdown(t.Question)))
		for i, tu := range t.Turns {
			final := i == len(t.Turns)-1 && len(tu.Cells) == 0
			if s := strings.TrimSpace(tu.Text); s != "" && !final {
				cells = append(cells, nbMarkdown(safeMarkdown(s)))
			}
			for _, ce := range tu.Cells {
				n++
				cells = append(cells, nbCell{"cell_type": "code", "execution_count": n, "metadata": map[string]any{},
					"source": ipynb.Lines(strings.TrimRight(ce.Code, "\n")), "outputs": nbOutputs(ce, plots)})
			}
		}
		if s := strings.TrimSpace(t.Answer); s != "" {
			cells = append(cells, nbMarkdown(safeMarkdown(s+"\n\n"+SourcesMarkdown(t.Citations))))
		}
		for _, n := range append(append([]string(nil), t.Cuts...), t.Note, t.Error, t.Shortened) {
			if n != "" {
				cells = append(cells, nbMarkdown(rehomeNote(n)))
			}
		}
	}
	for i, ce := range cells {
		ce["id"] = fmt.Sprintf("cell-%d", i)
	}
	return json.MarshalIndent(ipynb.Document(cells), "", " ")
}

// nbCell and nbOutput are a notebook's cell and a code cell's output.
type (
	nbCell   map[string]any
	nbOutput map[string]any
)

// nbMarkdown is a Markdown cell of s.
func nbMarkdown(s string) nbCell {
	return nbCell{"cell_type": "markdown", "metadata": map[string]any{}, "source": ipynb.Lines(s)}
}

// nbOutputs are a code cell's outputs: its streams, its error, and its
// plots embedded as PNG (within what plots allows; else said in words).
func nbOutputs(ce Cell, plots *exportPlots) []nbOutput {
	stderr := func(s string) nbOutput {
		return nbOutput{"output_type": "stream", "name": "stderr", "text": []string{s}}
	}
	outs := []nbOutput{}
	if ce.Result.Stdout != "" {
		outs = append(outs, nbOutput{"output_type": "stream", "name": "stdout", "text": ipynb.Lines(ce.Result.Stdout)})
	}
	if ce.Result.Stderr != "" {
		outs = append(outs, nbOutput{"output_type": "stream", "name": "stderr", "text": ipynb.Lines(ce.Result.Stderr)})
	}
	if ce.Error != "" {
		outs = append(outs, stderr("rehome: "+ce.Error+"\n"))
	}
	for _, f := range ce.Result.Files {
		if f.Kind != "plot" {
			continue
		}
		data, why, err := plots.read(f.Path)
		if why != "" {
			outs = append(outs, stderr("rehome: the plot "+f.Name+" "+why+": its file is "+f.Path+"\n"))
			continue
		}
		if err != nil {
			if rest, ok := strings.CutPrefix(f.DataURL, "data:image/png;base64,"); ok {
				outs = append(outs, nbOutput{"output_type": "display_data", "metadata": map[string]any{}, "data": map[string]any{"image/png": rest}})
			}
			continue
		}
		outs = append(outs, nbOutput{"output_type": "display_data", "metadata": map[string]any{},
			"data": map[string]any{"image/png": base64.StdEncoding.EncodeToString(data)}})
	}
	return outs
}

// SourcesMarkdown lists citations as a Markdown block under an answer:
// each [n] with its file, page or section and the quoted passage; ""
// when there are none.
func SourcesMarkdown(cs []Citation) string {
	if len(cs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Sources:\n\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "- [%d] %s", c.N, c.File)
		switch {
		case c.PageEnd > c.Page && c.Page > 0:
			fmt.Fprintf(&b, ", pages %d–%d", c.Page, c.PageEnd)
		case c.Page > 0:
			fmt.Fprintf(&b, ", page %d", c.Page)
		}
		if c.Section != "" {
			fmt.Fprintf(&b, ", %s", c.Section)
		}
		if c.URL != "" { // a page browsing read: its address
			fmt.Fprintf(&b, " — %s", oneLine(c.URL))
		}
		if q := oneLine(c.Quote); q != "" {
			if r := []rune(q); len(r) > 300 {
				q = string(r[:299]) + "…"
			}
			fmt.Fprintf(&b, ": “%s”", q)
		}
		b.WriteString("\n")
	}
	return b.String() + "\n"
}

// A notebook is written whole, its plots inside it as base64: the plots
// the code made (outside bytes) are embedded up to these bounds, the rest
// named with their files.
const (
	maxExportPlot  = 8 << 20
	maxExportPlots = 64 << 20
)

// exportPlots is what is left of maxExportPlots in one notebook.
type exportPlots struct{ left int64 }

// read reads a plot's file within the bounds; why says which it is past.
func (b *exportPlots) read(path string) (data []byte, why string, err error) {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, "", err
	case !st.Mode().IsRegular():
		return nil, "", fmt.Errorf("%s is not a file", path)
	case st.Size() > maxExportPlot:
		return nil, fmt.Sprintf("(%d MiB) is larger than a notebook embeds (8 MiB)", st.Size()>>20), nil
	case st.Size() > b.left:
		return nil, "is past the 64 MiB of plots one notebook embeds", nil
	}
	if data, err = os.ReadFile(path); err == nil {
		if int64(len(data)) > b.left {
			return nil, "is past the 64 MiB of plots one notebook embeds", nil
		}
		b.left -= int64(len(data))
	}
	return data, "", err
}
