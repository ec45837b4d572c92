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
	fs := env.flags("ask", "ask [--file F]... [--assistant ID|NAME] [--browse] [--server URL] [--model NAME] [--max-steps N] [--mode auto|tools|fenced] [--continue ID] [--temporary] [--image IMG]... [--temperature T] [--context N] [--system-prompt TEXT] [--answer-timeout 30m] [--json] [--verbose] QUESTION")
	var files stringList
	fs.Var(&files, "file", "a `file` the code may read, at /mnt/data/<name> (repeatable)")
	assistantID := fs.String("assistant", "", "the assistant (its `id` or name) whose instructions and knowledge to use")
	server := fs.String("server", "", "the model server's base `URL`, as an OpenAI client takes it (http://127.0.0.1:11434/v1); default: the first found on this machine")
	model := fs.String("model", "", "the `model` to use (default: the assistant's default model, else the server's first that calls tools)")
	keepModel := fs.Bool("keep-model", false, "store --model as the assistant's default model (with --assistant)")
	maxSteps := fs.Int("max-steps", core.DefaultMaxSteps, "most code `runs` for the question")
	mode := fs.String("mode", core.ModeAuto, "how the model runs code: auto (the python tool, falling back to ```python blocks), tools, fenced")
	cont := fs.String("continue", "", "the conversation `id` to continue (its earlier answers are the context)")
	asJSON := fs.Bool("json", false, "print the transcript as JSON: cells with code, exit code, outputs and files, and the answer")
	verbose := fs.Bool("verbose", false, "print each cell's code and output on stderr")
	timeout := fs.Duration("timeout", core.DefaultLimits.Timeout, "wall-clock `limit` of each cell (default: as saved in Settings)")
	answerTimeout := fs.Duration("answer-timeout", core.DefaultDeadline, "the most `time` the model server may take for one answer")
	browseOn := fs.Bool("browse", false, "offer web_search and open_url: the carried Kiwix libraries (rehome library), and the web where Settings → Browsing names a search engine")
	yes := fs.Bool("yes", false, "make the assistant's action calls that need confirming without asking (without a terminal and --yes they are declined)")
	var images stringList
	fs.Var(&images, "image", "an image `file` to show the model (PNG, JPEG, WebP, GIF; repeatable): the model must read images")
	temporary := fs.Bool("temporary", false, "a temporary chat: no memory read or saved (a conversation continued stays as it began)")
	settings := modelSettingFlags(fs) // over the model's saved settings (rehome models settings)
	env.addPodmanFlags(fs)
	words, code, ok := parseInterspersed(env, fs, args)
	if !ok {
		return code
	}
	question := strings.TrimSpace(strings.Join(words, " "))
	if question == "" {
		return env.usage("ask takes a question (see `rehome ask --help`)")
	}
	if *answerTimeout <= 0 {
		return env.usage("--answer-timeout must be a positive duration, like 30m")
	}
	if *maxSteps < 1 || *maxSteps > 50 {
		return env.usage("--max-steps must be between 1 and 50")
	}
	switch *mode {
	case core.ModeAuto, core.ModeTools, core.ModeFenced:
	default:
		return env.usage("--mode is auto, tools or fenced")
	}
	if err := core.CheckModelSettings(settings()); err != nil {
		return env.usage("%v", err)
	}
	if *keepModel && (*model == "" || *assistantID == "") {
		return env.usage("--keep-model stores --model as the default of --assistant: give both")
	}
	// --timeout, when given, wins over the limits saved in Settings.
	var lim core.Limits
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "timeout" {
			lim.Timeout = *timeout
		}
	})
	c, err := env.core(core.Options{})
	if err != nil {
		return env.fail(err)
	}
	if lim, err = c.Sessions().Limits(lim); err != nil {
		var le *core.LimitsError
		if errors.As(err, &le) {
			return env.usage("--timeout: %v", err)
		}
		return env.fail(err)
	}
	ctx, cancel := env.interruptible()
	defer cancel()
	asks := c.Asks()
	ask, err := asks.Prepare(ctx, core.AskRequest{ConversationID: *cont, AssistantID: *assistantID,
		Files: env.paths(files), KeepFiles: true, Server: *server, Model: *model, KeepModel: *keepModel,
		MaxSteps: *maxSteps, Mode: *mode, Question: question, Limits: lim, Deadline: *answerTimeout, Confirm: confirmer(env, *yes), Browse: *browseOn, Temporary: *temporary, Images: env.paths(images), Settings: settings(),
		Progress: func(msg string) { fmt.Fprintf(env.stderr, "rehome: %s\n", termSafe(msg)) }})
	if err != nil {
		switch {
		case *cont != "" && errors.Is(err, core.ErrNotFound):
			err = fmt.Errorf("%w (see `rehome conversations list`)", err)
		case *assistantID != "" && errors.Is(err, core.ErrNotFound):
			err = fmt.Errorf("%w (see `rehome assistants list`)", err)
		}
		return env.fail(err)
	}
	conv, mdl, srv := ask.Conversation, ask.Model, ask.Server
	// One session for the question: what a cell defines is there for the
	// next. A continued conversation's earlier state is gone (its session
	// ended with the command that ran it): the model is told at its first
	// cell.
	defer func() {
		if err := asks.Close(context.WithoutCancel(ctx), conv.ID); err != nil {
			fmt.Fprintf(env.stderr, "rehome: %v\n", err)
		}
	}()
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

	cell := 0
	lastWasText := false
	sh := newShower(env) // the model's and the server's words, shown on a terminal, never obeyed
	onEvent := func(ev core.Event) {
		if *asJSON {
			return
		}
		switch ev.Type {
		case "token":
			sh.stdout(ev.Text)
			lastWasText = !strings.HasSuffix(ev.Text, "\n")
		case "note":
			fmt.Fprintf(env.stderr, "\nrehome: %s\n", sh.safe(ev.Text))
		case "cell_start":
			if lastWasText {
				fmt.Fprintln(env.stdout)
				lastWasText = false
			}
			cell++
			if *verbose {
				fmt.Fprintf(env.stderr, "── cell %d ──\n%s\n", cell, sh.safe(strings.TrimRight(ev.Cell.Code, "\n")))
			} else {
				fmt.Fprintf(env.stderr, "rehome: running cell %d…\n", cell)
			}
		case "cell_done":
			c := ev.Cell
			if *verbose {
				fmt.Fprintf(env.stderr, "── output ──\n%s\n", sh.safe(c.Fed))
			}
			if c.Error != "" {
				fmt.Fprintf(env.stderr, "rehome: cell %d could not run: %s\n", cell, sh.safe(c.Error))
			} else {
				fmt.Fprintf(env.stderr, "rehome: cell %d: %s\n", cell, cellLine(c.Result))
			}
			for _, f := range c.Result.Files {
				fmt.Fprintf(env.stderr, "rehome: %-5s %s → %s\n", f.Kind, sh.safe(f.Name), sh.safe(f.Path))
			}
		}
	}
	started := time.Now()
	t := ask.Run(ctx, onEvent)
	if err := ask.Keep(); err != nil {
		fmt.Fprintf(env.stderr, "rehome: %v (the answer is printed but not kept)\n", err)
	}
	if *asJSON {
		env.json(askJSON{ConversationID: conv.ID, Transcript: t, Cells: orEmpty(t.Cells())})
	} else {
		sh.flush()
		if lastWasText {
			fmt.Fprintln(env.stdout)
		}
		if len(t.Citations) > 0 {
			fmt.Fprint(env.stdout, "\n"+sh.safe(core.SourcesMarkdown(t.Citations)))
		}
		if t.Note != "" {
			note := t.Note
			if t.Stopped == core.StopMaxSteps {
				note += fmt.Sprintf(" More runs: --max-steps (now %d).", *maxSteps)
			}
			fmt.Fprintf(env.stderr, "rehome: %s\n", sh.safe(note))
		}
		if t.Error != "" {
			fmt.Fprintf(env.stderr, "rehome: %s\n", sh.safe(t.Error))
		}
		memoryLines(env, sh, t)
		fmt.Fprintf(env.stderr, "rehome: %s with %s, %d cell(s), %s; conversation %s (continue with --continue %s)\n",
			t.Stopped, sh.safe(mdl), len(t.Cells()), time.Since(started).Round(100*time.Millisecond), conv.ID, conv.ID)
	}
	if t.Stopped != core.StopAnswered {
		if env.interrupted(nil) {
			return exitInterrupted // Ctrl-C: said above, conversation kept
		}
		return exitFail
	}
	return exitOK
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
		s += fmt.Sprintf(", %d plot(s)", plots)
	}
	if files > 0 {
		s += fmt.Sprintf(", %d file(s)", files)
	}
	return s + fmt.Sprintf(", %s", time.Duration(r.DurationMS)*time.Millisecond)
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
