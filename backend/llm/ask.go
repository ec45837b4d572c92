package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// sameCodeNote is said when the model asks for code that already ran.
const sameCodeNote = "The model asked to run the same code again; rehome stopped the loop rather than run it twice. Ask again more precisely, or try another model."

// asking is one question on its way through the loop: the transcript so
// far, the messages sent, and what the bounds have counted.
type asking struct {
	l        *Loop
	ctx      context.Context
	t        *Transcript
	q        *askState
	reg      *registry
	msgs     []Message
	mode     string // as asked: auto, tools or fenced
	wireMode string // as sent: tools or fenced
	maxSteps int
	ran      map[string]bool // code and tool calls already run
	cells    int             // code runs
	kept     int             // bytes of text, thinking and code this question holds
	retried  bool            // went on with fenced blocks after a refusal
	shown    int             // figures shown to the model this question
}

// Ask runs question through the loop and returns its transcript. It ends
// when the model answers without code, after MaxSteps code runs, when the
// model asks for the same code again, or when ctx is cancelled (the
// transcript so far is returned, with Stopped saying why).
func (l *Loop) Ask(ctx context.Context, question string) *Transcript {
	a := l.newAsking(ctx, question)
	t := a.t
	defer func() {
		t.DurationMS = time.Since(t.Started).Milliseconds()
		if t.Files == nil {
			t.Files = []OutFile{}
		}
		l.event(Event{Type: "done", Turn: len(t.Turns) - 1})
	}()
	a.start()
	for !a.turn() {
	}
	return t
}

// newAsking sets the question's transcript and bounds from the loop's
// settings.
func (l *Loop) newAsking(ctx context.Context, question string) *asking {
	t := &Transcript{Question: question, Model: l.Model, Vision: l.Vision, Started: time.Now().UTC()}
	if l.Client != nil {
		t.Server = l.Client.BaseURL
	}
	a := &asking{l: l, ctx: ctx, t: t, maxSteps: l.MaxSteps, mode: l.Mode, wireMode: ModeTools, ran: map[string]bool{}}
	if a.maxSteps <= 0 {
		a.maxSteps = DefaultMaxSteps
	}
	if a.mode == "" {
		a.mode = ModeAuto
	}
	if a.mode == ModeFenced {
		a.wireMode = ModeFenced
	}
	t.Mode = a.wireMode
	t.ContextTokens, t.ContextSource = l.Context.Tokens, l.Context.Source
	return a
}

// start writes the first messages: the system prompt, the history that
// fits the context, and the question.
func (a *asking) start() {
	l := a.l
	a.reg = l.registry()
	a.q = &askState{text: a.t.Question, ctx: l.Context.Tokens}
	a.msgs = []Message{{Role: "system", Content: l.SystemPrompt(a.wireMode)}}
	if a.wireMode == ModeFenced {
		a.fencedPrompt()
	}
	hist, cut := fitHistory(l.History, a.q.ctx, EstimateTokens(a.msgs[0].Content)+EstimateTokens(a.t.Question)+toolsTokens(a.reg, a.wireMode))
	if cut != "" {
		a.note(0, cut)
	}
	a.msgs = append(a.msgs, hist...)
	a.msgs = append(a.msgs, Message{Role: "user", Content: a.t.Question, Images: l.Images})
	a.t.Images = l.ImageNames
}

// fencedPrompt sets the fenced system prompt, with what the tools have
// for the question up front (a fenced model calls no tools).
func (a *asking) fencedPrompt() {
	a.msgs[0].Content = a.l.SystemPrompt(ModeFenced)
	a.q.used = EstimateTokens(a.msgs[0].Content) + EstimateTokens(a.t.Question)
	extra, uses := a.l.upFront(a.ctx, a.q, a.reg)
	a.msgs[0].Content += extra
	if len(uses) == 0 {
		return
	}
	a.t.Turns = append(a.t.Turns, Turn{Tools: uses})
	for _, u := range uses {
		for _, n := range u.Notes {
			a.note(len(a.t.Turns)-1, n)
		}
	}
}

// note keeps a cut said in words and tells the face.
func (a *asking) note(turn int, n string) {
	a.t.Cuts = append(a.t.Cuts, n)
	a.l.event(Event{Type: "note", Turn: turn, Text: n})
}

// turn sends one request and acts on the reply: it says whether the
// question is done.
func (a *asking) turn() bool {
	t := a.t
	if a.ctx.Err() != nil {
		return a.canceled()
	}
	last := a.cells >= a.maxSteps
	turn := len(t.Turns)
	t.Turns = append(t.Turns, Turn{})
	reply, err := a.send(turn, last)
	if err != nil {
		return a.failed(turn, err)
	}
	tu := &t.Turns[turn]
	if a.overKept(tu, reply) {
		return true
	}
	calls := reply.Message.ToolCalls
	var fenced string
	if len(calls) == 0 && a.wireMode == ModeFenced {
		// Only a tool call runs code where the model was given the
		// tool: a block in its answer is an example, shown.
		fenced, _ = ActionBlock(tu.Text)
	}
	if len(calls) == 0 && fenced == "" {
		a.answered(tu)
		a.l.event(Event{Type: "turn_done", Turn: turn})
		return true
	}
	if last {
		t.Stopped, t.Answer = StopMaxSteps, tu.Text
		t.Note = fmt.Sprintf("The model still wanted to run code after %d runs; rehome stopped it. Ask again allowing more code runs, or a narrower question.", a.maxSteps)
		return true
	}
	var done bool
	if len(calls) > 0 {
		done = a.toolCalls(turn, calls)
	} else {
		done = a.fencedCell(turn, fenced)
	}
	if !done {
		a.l.event(Event{Type: "turn_done", Turn: turn})
	}
	return done
}

// send streams one request to the model (the last one without tools,
// told to answer) and keeps its text, thinking and timing in the turn.
func (a *asking) send(turn int, last bool) (Reply, error) {
	l := a.l
	req := ChatRequest{Model: l.Model, Messages: a.msgs, Temperature: l.Temperature}
	if a.wireMode == ModeTools && !last {
		req.Tools = a.reg.wire()
	}
	a.q.used = messagesTokens(a.msgs) + toolsTokens(a.reg, a.wireMode)
	if last {
		req.Messages = append(append([]Message{}, a.msgs...), Message{Role: "user",
			Content: fmt.Sprintf("(rehome: that was the last of the %d code runs allowed for this question. Answer now from what you have, without code.)", a.maxSteps)})
	}
	began := time.Now()
	reply, err := l.Client.ChatStream(a.ctx, req, func(d Delta) {
		switch {
		case d.Content != "":
			l.event(Event{Type: "token", Turn: turn, Text: d.Content})
		case d.Reasoning != "":
			l.event(Event{Type: "reasoning", Turn: turn, Text: d.Reasoning})
		case d.ToolCall != nil && d.ToolCall.Arguments != "":
			l.event(Event{Type: "code", Turn: turn, Text: d.ToolCall.Arguments})
		}
	})
	tu := &a.t.Turns[turn]
	tu.Text, tu.Reasoning = reply.Message.Content, reply.Message.Reasoning
	tu.Stats = statsOf(reply, time.Since(began))
	return reply, err
}

// failed ends the question on a failed request, or goes on with fenced
// code blocks, once, where the server refused the python tool; it says
// whether the question is done.
func (a *asking) failed(turn int, err error) bool {
	t := a.t
	answer := t.Turns[turn].Text
	if a.ctx.Err() != nil || errors.Is(err, context.Canceled) {
		// Stopped while the model wrote: the part that came is the
		// answer, kept and shown as stopped (a half-written tool call
		// is not run, and stays in its turn).
		a.canceled()
		t.Answer = answer
		return true
	}
	// A model the server will not give tools (Ollama: "… does not
	// support tools"), or a stream that broke off because the output did
	// not parse as a tool call (llama-server): go on with fenced code
	// blocks, once.
	var se *ServerError
	if errors.As(err, &se) && a.mode == ModeAuto && a.wireMode == ModeTools && !a.retried && (se.Status == 400 || se.Status == 0) {
		a.retried = true
		a.wireMode, t.Mode = ModeFenced, ModeFenced
		t.Turns = t.Turns[:turn]
		a.fencedPrompt()
		a.l.event(Event{Type: "note", Turn: turn, Text: "The server refused the python tool (" + se.Message + "); going on with ```python blocks instead."})
		return false
	}
	t.Stopped, t.Error = StopError, err.Error()
	t.Answer = answer
	return true
}

// overKept counts what the reply adds to the question and ends it when
// that passes MaxTranscriptBytes.
func (a *asking) overKept(tu *Turn, reply Reply) bool {
	a.kept += len(tu.Text) + len(tu.Reasoning)
	for _, tc := range reply.Message.ToolCalls {
		a.kept += len(tc.Function.Arguments)
	}
	if a.kept <= MaxTranscriptBytes {
		return false
	}
	a.t.Stopped, a.t.Answer = StopError, tu.Text
	a.t.Error = tooLarge("answers to one question", MaxTranscriptBytes).Error()
	return true
}

// canceled ends the question as stopped by the user.
func (a *asking) canceled() bool {
	a.t.Stopped, a.t.Note = StopCanceled, "Stopped by the user."
	return true
}

// answered ends the question with tu's text as the answer, and the
// sources it cites.
func (a *asking) answered(tu *Turn) {
	a.t.Stopped, a.t.Answer = StopAnswered, tu.Text
	tu.Citations = Cited(tu.Text, a.q.sources)
	a.t.Citations = tu.Citations
}

// sameCode ends the question where the model asked for code that ran.
func (a *asking) sameCode(tu *Turn) {
	a.t.Stopped, a.t.Answer = StopLoop, tu.Text
	a.t.Note = sameCodeNote
}

// see attaches the figures a cell drew for a model that reads images,
// within MaxImagesPerQuestion, and says so in what the model is fed.
func (a *asking) see(c *Cell) []string {
	if !a.l.Vision || c.Error != "" {
		return nil
	}
	urls, names := plotImages(c.Result.Files, MaxImagesPerQuestion-a.shown)
	a.shown += len(urls)
	if len(urls) > 0 {
		c.Fed += "\n(" + strings.Join(names, ", ") + " attached to the next message, so that you can see what the user sees.)"
	}
	return urls
}
