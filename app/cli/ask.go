package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"rehome/backend/core"
)

// cmdAsk is `rehome ask`: one question in words through the loop — the
// model writes Python, the sandbox runs it, the output goes back, until
// the model answers. The answer streams to stdout; plots are saved and
// named on stderr; the conversation is kept.
func cmdAsk(env *cliEnv, args []string) int {
	f, code, ok := parseAskFlags(env, args)
	if !ok {
		return code
	}
	c, err := env.core(core.Options{})
	if err != nil {
		return env.fail(err)
	}
	lim, err := c.Sessions().Limits(f.lim)
	if err != nil {
		return env.failLimits(err, "--timeout: %v")
	}
	ctx, cancel := env.interruptible()
	defer cancel()
	asks := c.Asks()
	ask, err := asks.Prepare(ctx, f.request(env, lim))
	if err != nil {
		switch {
		case f.cont != "" && errors.Is(err, core.ErrNotFound):
			err = fmt.Errorf("%w (see `rehome conversations list`)", err)
		case f.assistantID != "" && errors.Is(err, core.ErrNotFound):
			err = fmt.Errorf("%w (see `rehome assistants list`)", err)
		}
		return env.fail(err)
	}
	conv := ask.Conversation
	// One session for the question: what a cell defines is there for the
	// next. A continued conversation's earlier state is gone (its session
	// ended with the command that ran it): the model is told at its first
	// cell.
	defer func() {
		if err := asks.Close(context.WithoutCancel(ctx), conv.ID); err != nil {
			fmt.Fprintf(env.stderr, "rehome: %v\n", err)
		}
	}()
	askNotices(env, ask)

	p := &askPrinter{env: env, sh: newShower(env), verbose: f.verbose}
	onEvent := p.event
	if f.asJSON {
		onEvent = func(core.Event) {}
	}
	started := time.Now()
	t := ask.Run(ctx, onEvent)
	if err := ask.Keep(); err != nil {
		fmt.Fprintf(env.stderr, "rehome: %v (the answer is printed but not kept)\n", err)
	}
	if f.asJSON {
		env.json(askJSON{ConversationID: conv.ID, Transcript: t, Cells: orEmpty(t.Cells())})
	} else {
		p.end(t, ask.Model, conv.ID, f.maxSteps, time.Since(started))
	}
	if t.Stopped != core.StopAnswered {
		if env.interrupted(nil) {
			return exitInterrupted // Ctrl-C: said above, conversation kept
		}
		return exitFail
	}
	return exitOK
}

// askFlags are `rehome ask`'s flags and question, checked.
type askFlags struct {
	question, assistantID, server, model, mode, cont string
	files, images                                    stringList
	keepModel, asJSON, verbose, browse, yes, temp    bool
	maxSteps                                         int
	answerTimeout                                    time.Duration
	lim                                              core.Limits        // the --timeout given, else zero
	settings                                         core.ModelSettings // over the model's saved settings
}

// parseAskFlags parses and checks `rehome ask`'s command line.
func parseAskFlags(env *cliEnv, args []string) (*askFlags, int, bool) {
	f := &askFlags{}
	fs := env.flags("ask", "ask [--file F]... [--assistant ID|NAME] [--browse] [--server URL] [--model NAME] [--max-steps N] [--mode auto|tools|fenced] [--continue ID] [--temporary] [--image IMG]... [--temperature T] [--context N] [--system-prompt TEXT] [--answer-timeout 30m] [--json] [--verbose] QUESTION")
	fs.Var(&f.files, "file", "a `file` the code may read, at /mnt/data/<name> (repeatable)")
	fs.StringVar(&f.assistantID, "assistant", "", "the assistant (its `id` or name) whose instructions and knowledge to use")
	fs.StringVar(&f.server, "server", "", "the model server's base `URL`, as an OpenAI client takes it (http://127.0.0.1:11434/v1); default: the first found on this machine")
	fs.StringVar(&f.model, "model", "", "the `model` to use (default: the assistant's default model, else the server's first that calls tools)")
	fs.BoolVar(&f.keepModel, "keep-model", false, "store --model as the assistant's default model (with --assistant)")
	fs.IntVar(&f.maxSteps, "max-steps", core.DefaultMaxSteps, "most code `runs` for the question")
	fs.StringVar(&f.mode, "mode", core.ModeAuto, "how the model runs code: auto (the python tool, falling back to ```python blocks), tools, fenced")
	fs.StringVar(&f.cont, "continue", "", "the conversation `id` to continue (its earlier answers are the context)")
	fs.BoolVar(&f.asJSON, "json", false, "print the transcript as JSON: cells with code, exit code, outputs and files, and the answer")
	fs.BoolVar(&f.verbose, "verbose", false, "print each cell's code and output on stderr")
	timeout := fs.Duration("timeout", core.DefaultLimits.Timeout, "wall-clock `limit` of each cell (default: as saved in Settings)")
	fs.DurationVar(&f.answerTimeout, "answer-timeout", core.DefaultDeadline, "the most `time` the model server may take for one answer")
	fs.BoolVar(&f.browse, "browse", false, "offer web_search and open_url: the carried Kiwix libraries (rehome library), and the web where Settings → Browsing names a search engine")
	fs.BoolVar(&f.yes, "yes", false, "make the assistant's action calls that need confirming without asking (without a terminal and --yes they are declined)")
	fs.Var(&f.images, "image", "an image `file` to show the model (PNG, JPEG, WebP, GIF; repeatable): the model must read images")
	fs.BoolVar(&f.temp, "temporary", false, "a temporary chat: no memory read or saved (a conversation continued stays as it began)")
	settings := modelSettingFlags(fs) // over the model's saved settings (rehome models settings)
	env.addPodmanFlags(fs)
	words, code, ok := parseInterspersed(env, fs, args)
	if !ok {
		return nil, code, false
	}
	f.question = strings.TrimSpace(strings.Join(words, " "))
	if why := f.check(); why != "" {
		return nil, env.usage("%s", why), false
	}
	f.settings = settings()
	if err := core.CheckModelSettings(f.settings); err != nil {
		return nil, env.usage("%v", err), false
	}
	// --timeout, when given, wins over the limits saved in Settings.
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "timeout" {
			f.lim.Timeout = *timeout
		}
	})
	return f, exitOK, true
}

// check says what is wrong with the flags ("": nothing).
func (f *askFlags) check() string {
	switch {
	case f.question == "":
		return "ask takes a question (see `rehome ask --help`)"
	case f.answerTimeout <= 0:
		return "--answer-timeout must be a positive duration, like 30m"
	case f.maxSteps < 1 || f.maxSteps > 50:
		return "--max-steps must be between 1 and 50"
	case f.mode != core.ModeAuto && f.mode != core.ModeTools && f.mode != core.ModeFenced:
		return "--mode is auto, tools or fenced"
	case f.keepModel && (f.model == "" || f.assistantID == ""):
		return "--keep-model stores --model as the default of --assistant: give both"
	}
	return ""
}

// request is the question as core takes it.
func (f *askFlags) request(env *cliEnv, lim core.Limits) core.AskRequest {
	return core.AskRequest{ConversationID: f.cont, AssistantID: f.assistantID,
		Files: env.paths(f.files), KeepFiles: true, Server: f.server, Model: f.model, KeepModel: f.keepModel,
		MaxSteps: f.maxSteps, Mode: f.mode, Question: f.question, Limits: lim, Deadline: f.answerTimeout, Confirm: confirmer(env, f.yes), Browse: f.browse, Temporary: f.temp, Images: env.paths(f.images), Settings: f.settings,
		Progress: func(msg string) { fmt.Fprintf(env.stderr, "rehome: %s\n", termSafe(msg)) }}
}

// askNotices says on stderr what the prepared question is about to do:
// a model kept as default, a temporary chat, a model that will not fit,
// a server on another machine.
func askNotices(env *cliEnv, ask *core.Ask) {
	conv, mdl, srv := ask.Conversation, ask.Model, ask.Server
	if ask.KeptModel {
		fmt.Fprintf(env.stderr, "rehome: %s is now %s's default model\n", mdl, conv.AssistantName)
	}
	if conv.Temporary {
		fmt.Fprintln(env.stderr, "rehome: a temporary chat: no memory is read or saved")
	}
	for _, n := range ask.Notes {
		fmt.Fprintf(env.stderr, "rehome: %s\n", n)
	}
	if line := settingsLine(ask.Settings, ask.Context); line != "" {
		fmt.Fprintf(env.stderr, "rehome: %s: %s\n", termSafe(mdl), line)
	}
	if strings.HasPrefix(ask.Fit, "will not fit") {
		fmt.Fprintf(env.stderr, "rehome: %s %s\n", mdl, ask.Fit)
	}
	if !srv.Loopback {
		fmt.Fprintf(env.stderr, "rehome: %s is on another machine: the question and the files' descriptions go there (the files stay here)\n", srv.BaseURL)
	}
}

// askPrinter shows a question's steps on a terminal: the answer as it
// streams on stdout, each cell and its files on stderr. The model's and
// the server's words go through the shower: shown, never obeyed.
type askPrinter struct {
	env         *cliEnv
	sh          *shower
	verbose     bool
	cell        int
	lastWasText bool // stdout does not end with a newline
}

// event shows one step of the loop.
func (p *askPrinter) event(ev core.Event) {
	env, sh := p.env, p.sh
	switch ev.Type {
	case "token":
		sh.stdout(ev.Text)
		p.lastWasText = !strings.HasSuffix(ev.Text, "\n")
	case "note":
		fmt.Fprintf(env.stderr, "\nrehome: %s\n", sh.safe(ev.Text))
	case "cell_start":
		if p.lastWasText {
			fmt.Fprintln(env.stdout)
			p.lastWasText = false
		}
		p.cell++
		if p.verbose {
			fmt.Fprintf(env.stderr, "── cell %d ──\n%s\n", p.cell, sh.safe(strings.TrimRight(ev.Cell.Code, "\n")))
		} else {
			fmt.Fprintf(env.stderr, "rehome: running cell %d…\n", p.cell)
		}
	case "cell_done":
		c := ev.Cell
		if p.verbose {
			fmt.Fprintf(env.stderr, "── output ──\n%s\n", sh.safe(c.Fed))
		}
		if c.Error != "" {
			fmt.Fprintf(env.stderr, "rehome: cell %d could not run: %s\n", p.cell, sh.safe(c.Error))
		} else {
			fmt.Fprintf(env.stderr, "rehome: cell %d: %s\n", p.cell, cellLine(c.Result))
		}
		for _, f := range c.Result.Files {
			fmt.Fprintf(env.stderr, "rehome: %-5s %s → %s\n", f.Kind, sh.safe(f.Name), sh.safe(f.Path))
		}
	}
}

// end shows how the question ended: its sources, why it stopped, what
// memory kept, and how to continue.
func (p *askPrinter) end(t *core.Transcript, mdl, convID string, maxSteps int, took time.Duration) {
	env, sh := p.env, p.sh
	sh.flush()
	if p.lastWasText {
		fmt.Fprintln(env.stdout)
	}
	if len(t.Citations) > 0 {
		fmt.Fprint(env.stdout, "\n"+sh.safe(core.SourcesMarkdown(t.Citations)))
	}
	if t.Note != "" {
		note := t.Note
		if t.Stopped == core.StopMaxSteps {
			note += fmt.Sprintf(" More runs: --max-steps (now %d).", maxSteps)
		}
		fmt.Fprintf(env.stderr, "rehome: %s\n", sh.safe(note))
	}
	if t.Error != "" {
		fmt.Fprintf(env.stderr, "rehome: %s\n", sh.safe(t.Error))
	}
	memoryLines(env, sh, t)
	fmt.Fprintf(env.stderr, "rehome: %s with %s, %d cell(s), %s; conversation %s (continue with --continue %s)\n",
		t.Stopped, sh.safe(mdl), len(t.Cells()), took.Round(100*time.Millisecond), convID, convID)
}

// askJSON is what `rehome ask --json` prints.
type askJSON struct {
	ConversationID string `json:"conversation_id"`
	*core.Transcript
	Cells []core.Cell `json:"cells"`
}

func orEmpty(c []core.Cell) []core.Cell {
	if c == nil {
		return []core.Cell{}
	}
	return c
}

func cellLine(r core.AnswerCellResult) string {
	s := fmt.Sprintf("exit %d", r.ExitCode)
	switch {
	case r.TimedOut:
		s = "killed at the time limit"
	case r.OOMKilled:
		s = "killed for memory"
	}
	var plots, files int
	for _, f := range r.Files {
		if f.Kind == "plot" {
			plots++
		} else {
			files++
		}
	}
	if plots > 0 {
		s += ", " + counted(plots, "plot", "plots")
	}
	if files > 0 {
		s += ", " + counted(files, "file", "files")
	}
	return s + fmt.Sprintf(", %s", time.Duration(r.DurationMS)*time.Millisecond)
}

// interspersedN is parseInterspersed wanting exactly n words; other than
// n is the usage error msg.
func interspersedN(env *cliEnv, fs *flag.FlagSet, args []string, n int, msg string) ([]string, int, bool) {
	words, code, ok := parseInterspersed(env, fs, args)
	return wantN(env, words, code, ok, n, msg)
}

// mixedN is parseMixed wanting exactly n positional arguments.
func mixedN(env *cliEnv, fs *flag.FlagSet, args []string, n int, msg string) ([]string, int, bool) {
	pos, code, ok := parseMixed(env, fs, args)
	return wantN(env, pos, code, ok, n, msg)
}

func wantN(env *cliEnv, words []string, code int, ok bool, n int, msg string) ([]string, int, bool) {
	if !ok {
		return nil, code, false
	}
	if len(words) != n {
		return nil, env.usage("%s", msg), false
	}
	return words, exitOK, true
}

// parseInterspersed parses flags that may come before or after the
// positional words (`rehome ask "question" --json`).
func parseInterspersed(env *cliEnv, fs *flag.FlagSet, args []string) (words []string, code int, ok bool) {
	for {
		if code, ok := env.parse(fs, args); !ok {
			return nil, code, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return words, exitOK, true
		}
		if rest[0] == "--" || (len(args) > len(rest) && args[len(args)-len(rest)-1] == "--") {
			return append(words, rest...), exitOK, true
		}
		words = append(words, rest[0])
		args = rest[1:]
	}
}
