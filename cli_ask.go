package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"rehome/backend/assistant"
	"rehome/backend/hardware"
	"rehome/backend/llm"
	"rehome/backend/llm/sandboxexec"
	"rehome/backend/models"
	"rehome/backend/store"
	"rehome/sandbox"
)

// cmdAsk is `rehome ask`: one question in words through the loop — the
// model writes Python, the sandbox runs it, the output goes back, until
// the model answers. The answer streams to stdout; plots are saved and
// named on stderr; the conversation is kept.
func cmdAsk(env *cliEnv, args []string) int {
	fs := env.flags("ask", "ask [--file F]... [--assistant ID] [--server URL] [--model NAME] [--max-steps N] [--mode auto|tools|fenced] [--continue ID] [--json] [--verbose] QUESTION")
	var files stringList
	fs.Var(&files, "file", "a `file` the code may read, at /mnt/data/<name> (repeatable)")
	assistantID := fs.String("assistant", "", "the assistant `id` whose instructions and knowledge to use")
	server := fs.String("server", "", "the model server's base `URL`, as an OpenAI client takes it (http://127.0.0.1:11434/v1); default: the first found on this machine")
	model := fs.String("model", "", "the `model` to use (default: the assistant's default model, else the server's first that calls tools)")
	keepModel := fs.Bool("keep-model", false, "store --model as the assistant's default model (with --assistant)")
	maxSteps := fs.Int("max-steps", llm.DefaultMaxSteps, "most code `runs` for the question")
	mode := fs.String("mode", llm.ModeAuto, "how the model runs code: auto (the python tool, falling back to ```python blocks), tools, fenced")
	cont := fs.String("continue", "", "the conversation `id` to continue (its earlier answers are the context)")
	asJSON := fs.Bool("json", false, "print the transcript as JSON: cells with code, exit code, outputs and files, and the answer")
	verbose := fs.Bool("verbose", false, "print each cell's code and output on stderr")
	timeout := fs.Duration("timeout", sandbox.DefaultLimits.Timeout, "wall-clock `limit` of each cell")
	pf := env.addPodmanFlags(fs)
	words, code, ok := parseInterspersed(env, fs, args)
	if !ok {
		return code
	}
	question := strings.TrimSpace(strings.Join(words, " "))
	if question == "" {
		return env.usage("ask takes a question (see `rehome ask --help`)")
	}
	if *maxSteps < 1 || *maxSteps > 50 {
		return env.usage("--max-steps must be between 1 and 50")
	}
	switch *mode {
	case llm.ModeAuto, llm.ModeTools, llm.ModeFenced:
	default:
		return env.usage("--mode is auto, tools or fenced")
	}
	lim := sandbox.Limits{Timeout: *timeout}.WithDefaults()
	if err := lim.Validate(); err != nil {
		return env.usage("--timeout: %v", err)
	}
	st, err := env.openStore()
	if err != nil {
		return env.fail(err)
	}

	conv := llm.NewConversation()
	if *cont != "" {
		if conv, err = llm.GetConversation(st, *cont); err != nil {
			return env.fail(fmt.Errorf("%w (see `rehome conversations list`)", err))
		}
		if *assistantID == "" {
			*assistantID = conv.AssistantID
		}
		// The conversation's files stay; --file adds more.
		files = append(llm.HostPaths(conv.Files), files...)
	}
	if *keepModel && (*model == "" || *assistantID == "") {
		return env.usage("--keep-model stores --model as the default of --assistant: give both")
	}
	var instructions string
	fromAssistant := false
	if *assistantID != "" {
		a, err := env.c.Assistants().Get(*assistantID)
		if err != nil {
			return env.fail(fmt.Errorf("%w (see `rehome assistants list`)", err))
		}
		instructions = a.Instructions
		conv.AssistantID, conv.AssistantName = a.ID, a.Name
		switch {
		case *keepModel && *model != "":
			if _, err := env.c.Assistants().Edit(a.ID, func(as *assistant.Assistant) error {
				as.Model = *model
				return nil
			}); err != nil {
				return env.fail(err)
			}
			fmt.Fprintf(env.stderr, "rehome: %s is now %s's default model\n", *model, a.Name)
		case *model == "" && a.Model != "":
			*model, fromAssistant = a.Model, true
		}
		for _, k := range a.Knowledge {
			if k.Path != "" {
				if _, err := os.Stat(k.Path); err == nil {
					files = append(files, k.Path)
				}
			}
		}
	}
	infos, notes, err := llm.DescribeFiles(files)
	if err != nil {
		return env.fail(err)
	}
	for _, n := range notes {
		fmt.Fprintf(env.stderr, "rehome: %s\n", n)
	}
	conv.Files = infos

	ctx, cancel := env.interruptible()
	defer cancel()
	suggested := llm.SuggestedModel(st, *assistantID, "")
	if fromAssistant {
		suggested = *model
	}
	// A carried model (rehome models add) is started by rehome itself when
	// no server is named (core.LocalModels.PickServer).
	conn, err := env.c.LocalModels().PickServer(ctx, *server, *model, suggested, func(msg string) {
		fmt.Fprintf(env.stderr, "rehome: %s\n", termSafe(msg))
	})
	if err != nil {
		if fromAssistant {
			err = fmt.Errorf("%w (%s is the assistant's default model; --model names another)", err, *model)
		}
		return env.fail(err)
	}
	defer conn.Release()
	srv, mdl, client := conn.Server, conn.Model, conn.Client
	if fit := fitNote(ctx, mdl); strings.HasPrefix(fit, "will not fit") {
		fmt.Fprintf(env.stderr, "rehome: %s %s\n", mdl, fit)
	}
	if !srv.Loopback {
		fmt.Fprintf(env.stderr, "rehome: %s is on another machine: the question and the files' descriptions go there (the files stay here)\n", srv.BaseURL)
	}
	conv.Server, conv.Model = srv.BaseURL, mdl

	e, err := pf.engine(ctx)
	if err != nil {
		return env.fail(err)
	}
	defer e.Close()
	dir, err := env.dir()
	if err != nil {
		return env.fail(err)
	}
	// One session for the question: what a cell defines is there for the
	// next. A continued conversation's earlier state is gone (its session
	// ended with the command that ran it): the model is told at its first
	// cell.
	ex := &sandboxexec.Session{Engine: e,
		Request: sandbox.SessionRequest{InputPaths: llm.HostPaths(infos), Limits: lim, IdleTimeout: time.Hour},
		DirFor:  func(id string) string { return sandbox.SessionDir(dir, id) },
		Earlier: conv.HasCells(),
		Done: func(code string, res *sandbox.CellResult) {
			req := sandbox.RunRequest{Code: code}
			if res.Input != nil {
				req.InputPath = res.Input.HostPath
			}
			if err := env.c.Runs().Keep(sandbox.NewRecord(req, &res.Result, "ask")); err != nil {
				fmt.Fprintf(env.stderr, "rehome: %v\n", err)
			}
		}}
	defer func() {
		if err := ex.Close(context.WithoutCancel(ctx)); err != nil {
			fmt.Fprintf(env.stderr, "rehome: %v\n", err)
		}
	}()

	cell := 0
	lastWasText := false
	loop := &llm.Loop{Client: client, Model: mdl, Instructions: instructions,
		Files: infos, Exec: ex, Vision: srv.ReadsImages(mdl), MaxSteps: *maxSteps, Mode: *mode, History: conv.History(),
		OnEvent: func(ev llm.Event) {
			if *asJSON {
				return
			}
			switch ev.Type {
			case "token":
				fmt.Fprint(env.stdout, ev.Text)
				lastWasText = !strings.HasSuffix(ev.Text, "\n")
			case "note":
				fmt.Fprintf(env.stderr, "\nrehome: %s\n", ev.Text)
			case "cell_start":
				if lastWasText {
					fmt.Fprintln(env.stdout)
					lastWasText = false
				}
				cell++
				if *verbose {
					fmt.Fprintf(env.stderr, "── cell %d ──\n%s\n", cell, strings.TrimRight(ev.Cell.Code, "\n"))
				} else {
					fmt.Fprintf(env.stderr, "rehome: running cell %d…\n", cell)
				}
			case "cell_done":
				c := ev.Cell
				if *verbose {
					fmt.Fprintf(env.stderr, "── output ──\n%s\n", c.Fed)
				}
				if c.Error != "" {
					fmt.Fprintf(env.stderr, "rehome: cell %d could not run: %s\n", cell, c.Error)
				} else {
					fmt.Fprintf(env.stderr, "rehome: cell %d: %s\n", cell, cellLine(c.Result))
				}
				for _, f := range c.Result.Files {
					fmt.Fprintf(env.stderr, "rehome: %-5s %s → %s\n", f.Kind, f.Name, f.Path)
				}
			}
		}}
	started := time.Now()
	t := loop.Ask(ctx, question)
	conv.Add(t)
	if err := llm.SaveConversation(st, conv); err != nil {
		fmt.Fprintf(env.stderr, "rehome: %v (the answer is printed but not kept)\n", err)
	}
	if *asJSON {
		env.json(askJSON{ConversationID: conv.ID, Transcript: t, Cells: orEmpty(t.Cells())})
	} else {
		if lastWasText {
			fmt.Fprintln(env.stdout)
		}
		if t.Note != "" {
			note := t.Note
			if t.Stopped == llm.StopMaxSteps {
				note += fmt.Sprintf(" More runs: --max-steps (now %d).", *maxSteps)
			}
			fmt.Fprintf(env.stderr, "rehome: %s\n", note)
		}
		if t.Error != "" {
			fmt.Fprintf(env.stderr, "rehome: %s\n", t.Error)
		}
		fmt.Fprintf(env.stderr, "rehome: %s with %s, %d cell(s), %s; conversation %s (continue with --continue %s)\n",
			t.Stopped, mdl, len(t.Cells()), time.Since(started).Round(100*time.Millisecond), conv.ID, conv.ID)
	}
	if t.Stopped != llm.StopAnswered {
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
	*llm.Transcript
	Cells []llm.Cell `json:"cells"`
}

func orEmpty(c []llm.Cell) []llm.Cell {
	if c == nil {
		return []llm.Cell{}
	}
	return c
}

func cellLine(r llm.CellResult) string {
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
		if rest[0] == "--" || (len(args) > 0 && args[len(args)-len(rest)-1] == "--") {
			return append(words, rest...), exitOK, true
		}
		words = append(words, rest[0])
		args = rest[1:]
	}
}

// suggestedModel is the text model the latest audit chose, or "" when
// there is no audit.
func suggestedModel(st *store.Store) string { return llm.SuggestedModel(st, "", "") }

// fitNote says how model fits this machine ("" when the catalog does not
// know it or the hardware cannot be read).
func fitNote(ctx context.Context, model string) string {
	rep, err := hardware.NewDetector(hardware.Options{}).Detect(ctx)
	if err != nil {
		return ""
	}
	return llm.FitNote(model, models.MachineFrom(rep))
}
