package llm

import (
	"context"
	"strings"
	"time"
)

// Executor runs one cell of Python for the loop. The loop defines it (the
// consumer); rehome implements it with a live sandbox session per
// conversation (package sandboxexec: a cell's variables are there for the
// next), which core.Asks starts for every face.
type Executor interface {
	Exec(ctx context.Context, code string) (CellResult, error)
}

// CellResult is what one cell did.
type CellResult struct {
	RunID      string    `json:"run_id,omitempty"`
	ExitCode   int       `json:"exit_code"`
	TimedOut   bool      `json:"timed_out,omitempty"`
	OOMKilled  bool      `json:"oom_killed,omitempty"`
	Stdout     string    `json:"stdout"`
	Stderr     string    `json:"stderr"`
	Files      []OutFile `json:"files"`
	Summary    string    `json:"summary,omitempty"`
	Notes      []string  `json:"notes,omitempty"`
	DurationMS int64     `json:"duration_ms"`
	// SessionID and Cell name the session and its cell number, when the
	// cell ran in a session (state kept between cells).
	SessionID string `json:"session_id,omitempty"`
	Cell      int    `json:"cell,omitempty"`
	// Interrupted: Stop or the time limit interrupted the cell
	// (KeyboardInterrupt); the session's state is kept.
	Interrupted bool `json:"interrupted,omitempty"`
	// StateLost, when set, says in words that variables from earlier
	// cells are gone (a new session, a killed kernel): the model is told.
	StateLost string `json:"state_lost,omitempty"`
}

// OutFile is a plot or file a cell made, saved by rehome.
type OutFile struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"` // "plot" or "file"
	Size    int64  `json:"size"`
	Path    string `json:"path"`
	DataURL string `json:"data_url,omitempty"`
}

// Cell is one piece of code the model asked to run, and its result.
type Cell struct {
	Code string `json:"code"`
	// Via is "tool_call" (the python tool) or "fenced" (a ```python
	// block ending the message, for models without tool calling).
	Via        string     `json:"via"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Result     CellResult `json:"result"`
	// Error is set when the cell could not run at all (no sandbox).
	Error string `json:"error,omitempty"`
	// Fed is what the model was given back (cut to a few KB).
	Fed string `json:"fed"`
}

// Turn is one answer of the model: its text, its folded thinking, and
// the cells it ran.
type Turn struct {
	Text      string `json:"text"`
	Reasoning string `json:"reasoning,omitempty"`
	Cells     []Cell `json:"cells,omitempty"`
	// Tools are the calls of tools other than python (file_search, an
	// action), in order.
	Tools []ToolUse `json:"tools,omitempty"`
	// Citations are the sources this turn's text cites as [n] (knowledge
	// retrieval); the window shows each [n] as a chip that opens it.
	Citations []Citation `json:"citations,omitempty"`
	// Stats is how long the server took and how fast it wrote.
	Stats *TurnStats `json:"stats,omitempty"`
}

// Why the loop stopped.
const (
	StopAnswered = "answered"  // the model answered without code
	StopMaxSteps = "max_steps" // the bound on code runs was reached
	StopLoop     = "loop"      // the model asked for the same code again
	StopCanceled = "canceled"  // the user pressed Stop / Ctrl-C
	StopError    = "error"     // the server or the sandbox failed
)

// Transcript is one question through the loop.
type Transcript struct {
	Question string `json:"question"`
	// Images name the images the question carried (sent to the model).
	Images []string `json:"images,omitempty"`
	Model  string   `json:"model"`
	Server string   `json:"server"`
	Mode   string   `json:"mode"` // "tools" or "fenced"
	// Vision says the model was shown the plots (it reads images).
	Vision bool      `json:"vision,omitempty"`
	Turns  []Turn    `json:"turns"`
	Answer string    `json:"answer"`
	Files  []OutFile `json:"files"` // every plot and file made, in order
	// Attachments are the files the question came with (an imported
	// conversation's images and uploads, saved by rehome).
	Attachments []OutFile `json:"attachments,omitempty"`
	Stopped     string    `json:"stopped"`
	// Citations are the sources the answer cites as [n] (file, page or
	// section, the passage).
	Citations []Citation `json:"citations,omitempty"`
	// Cuts say what was left out to fit the model's context, in words:
	// never a silent truncation.
	Cuts []string `json:"cuts,omitempty"`
	// ContextTokens is the model's context length the loop kept within
	// (0: not known), and where it was read.
	ContextTokens int    `json:"context_tokens,omitempty"`
	ContextSource string `json:"context_source,omitempty"`
	// Settings are the model's own the question was asked with (its
	// temperature and system prompt; Context only for a carried model,
	// the -c its server ran with); nil when none was set.
	Settings *ModelSettings `json:"settings,omitempty"`
	// Note explains a stop other than an answer, in the user's words.
	Note string `json:"note,omitempty"`
	// Shortened, when set, says rehome cut this exchange to keep it
	// within its bound (see keep.go).
	Shortened  string    `json:"shortened,omitempty"`
	Error      string    `json:"error,omitempty"`
	Started    time.Time `json:"started"`
	DurationMS int64     `json:"duration_ms"`
}

// Cells returns every cell of the transcript, in order.
func (t *Transcript) Cells() []Cell {
	var out []Cell
	for _, tu := range t.Turns {
		out = append(out, tu.Cells...)
	}
	return out
}

// Event is a step of the loop, for showing it as it happens.
type Event struct {
	// Type: "token" (Text is visible text), "reasoning" (Text is
	// thinking), "code" (Text is a fragment of code being written),
	// "cell_start" (Cell.Code is about to run), "cell_done" (Cell is
	// complete), "turn_done", "note" (Text says something the user should
	// know, e.g. a switch to fenced code), "output" (Text is what the
	// running cell printed, as it comes), "done".
	Type string `json:"type"`
	Turn int    `json:"turn"`
	Text string `json:"text,omitempty"`
	Cell *Cell  `json:"cell,omitempty"`
	// Stream is "stdout" or "stderr" for an "output" event: what the
	// running cell printed (sent by the app from the sandbox's progress).
	Stream string `json:"stream,omitempty"`
}

// Mode chooses how the model runs code.
const (
	ModeAuto   = "auto"   // offer the python tool; fall back to fenced blocks when refused
	ModeTools  = "tools"  // offer the python tool only: only a tool call runs code
	ModeFenced = "fenced" // no tools: code in a ```python block that ends the message
)

// DefaultMaxSteps bounds the code runs of one question.
const DefaultMaxSteps = 6

// Loop is one conversation's settings.
type Loop struct {
	Client *Client
	Model  string
	// Instructions are the assistant's (the system prompt's first part).
	Instructions string
	// Files are described to the model (names, paths, sizes, columns).
	Files []FileInfo
	Exec  Executor
	// Stateless says each cell runs in a fresh process (one-shot runs):
	// the tool's description says so, so the model reloads its data.
	Stateless bool
	// MaxSteps bounds the code runs per question (default 6).
	MaxSteps int
	Mode     string
	// Temperature, when set, is sent; else the server's default.
	Temperature *float64
	// OnEvent sees each step (may be nil).
	OnEvent func(Event)
	// History is earlier exchanges of the conversation, oldest first.
	History []Message
	// Vision says the model reads images (per the server or the catalog):
	// the figures a cell drew are shown to it on the next turn (see
	// vision.go); else it reads only that each plot was saved.
	Vision bool
	// Tools are offered beside python (file_search, actions): entries of
	// one registry, called by name (see tools.go).
	Tools []LoopTool
	// Context is the model's context length in tokens and where it was
	// read (see ContextLength); 0: unknown, nothing is cut.
	Context ContextInfo
	// Images are the question's images (data: URLs, see backend/vision),
	// sent as image_url parts of its message; ImageNames are kept in the
	// transcript.
	Images     []string
	ImageNames []string
}

// ToolName is the code tool's name: the one ChatGPT's own Code
// Interpreter tool has, which models are trained on.
const ToolName = "python"

// PythonTool describes the tool as the wire carries it.
func (l *Loop) PythonTool() Tool {
	p := l.pythonEntry()
	return Tool{Type: "function", Function: ToolFunction{Name: p.Name, Description: p.Description, Parameters: p.Parameters}}
}

// pythonEntry is the code tool's entry in the registry. Its calls are
// run by the loop itself (runCell), since a cell carries state the loop
// keeps: the code-run bound, "the same code again", the figures shown.
func (l *Loop) pythonEntry() LoopTool {
	return LoopTool{
		Name:        ToolName,
		Description: l.toolDescription(),
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"code": map[string]any{"type": "string", "description": "The Python code to run."},
			},
			"required": []string{"code"},
		},
	}
}

func (l *Loop) toolDescription() string {
	var b strings.Builder
	b.WriteString("Runs Python 3 code in a sandbox with no internet access and returns what it prints (stdout, stderr, the traceback). ")
	if len(l.Files) > 0 {
		b.WriteString("The user's files are readable under /mnt/data (")
		for i, f := range l.Files {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.Path)
		}
		b.WriteString("). ")
	}
	b.WriteString("pandas, numpy, scipy, statsmodels, scikit-learn, matplotlib and seaborn are installed. ")
	b.WriteString("Figures drawn with matplotlib are shown to the user automatically; files written to /mnt/data are given to the user. ")
	if l.Stateless {
		b.WriteString("Each call runs in a fresh Python process: variables and imports do NOT persist between calls, so load the data again in each call.")
	} else {
		b.WriteString("State persists between calls: variables and imports stay defined.")
	}
	return b.String()
}

// SystemPrompt is the assistant's instructions plus what the model needs
// to know about the files and the code tool, for mode.
func (l *Loop) SystemPrompt(mode string) string {
	var b strings.Builder
	if s := strings.TrimSpace(l.Instructions); s != "" {
		b.WriteString(s)
		b.WriteString("\n\n")
	}
	b.WriteString("# Running code\n")
	if mode == ModeFenced {
		b.WriteString("You can run Python 3. To run code, end your message with one fenced block:\n\n```python\n# your code\n```\n\n")
		b.WriteString("Write nothing after that block. rehome runs it and replies with its output; then continue. ")
		b.WriteString("When you have the answer, reply in words without a ```python block at the end (a block followed by your explanation is shown, not run).\n")
	} else {
		b.WriteString("You have a tool, `python`, that runs Python 3 code and returns its output. Use it to read the files and compute answers; do not guess numbers you can compute. ")
		b.WriteString("When you have the answer, reply in words without calling the tool.\n")
	}
	b.WriteString(l.toolDescription())
	b.WriteString("\nDo not print or link the figures yourself: rehome shows each one under the answer where it was made.\n")
	if len(l.Files) > 0 {
		b.WriteString("\n# Files\n")
		for _, f := range l.Files {
			b.WriteString("- ")
			b.WriteString(f.Describe())
			b.WriteString("\n")
		}
	} else {
		b.WriteString("\nNo files were given.\n")
	}
	for _, t := range l.Tools {
		if t.Prompt != "" {
			b.WriteString("\n# " + t.Name + "\n" + strings.TrimSpace(t.Prompt) + "\n")
		}
	}
	return b.String()
}

func (l *Loop) event(e Event) {
	if l.OnEvent != nil {
		l.OnEvent(e)
	}
}

// run executes one cell and fills its result and what the model is fed.
func (l *Loop) run(ctx context.Context, t *Transcript, turn int, c *Cell) {
	l.event(Event{Type: "cell_start", Turn: turn, Cell: c})
	if l.Exec == nil {
		c.Error = "no sandbox to run code in"
		c.Fed = "(the code could not run: " + c.Error + ")"
	} else if res, err := l.Exec.Exec(ctx, c.Code); err != nil {
		c.Error = err.Error()
		c.Fed = "(the code could not run: " + c.Error + ")"
	} else {
		if res.Files == nil {
			res.Files = []OutFile{}
		}
		c.Result = res
		c.Fed = FormatOutput(res, MaxFed)
		t.Files = append(t.Files, res.Files...)
	}
	done := *c
	l.event(Event{Type: "cell_done", Turn: turn, Cell: &done})
}
