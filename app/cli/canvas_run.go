package cli

import (
	"fmt"

	"rehome/backend/core"
)

// cmdCanvasRun runs a code/python textdoc as the next cell of the
// conversation's sandbox session (core.Canvas.Run): beside a window that
// holds the data folder, the session its answers use.
func cmdCanvasRun(env *cliEnv, args []string) int {
	fs := env.flags("canvas run", "canvas run CONVERSATION [--doc ID] [--json]")
	doc := canvasDoc(fs)
	asJSON := fs.Bool("json", false, "print the cell's result as JSON")
	pos, cv, code := parseFor(env, fs, args, 1, "canvas run takes a conversation id (see `rehome conversations list`)", canvasService)
	if cv == nil {
		return code
	}
	run, err := cv.Run(env.context(), core.CanvasRunRequest{ConversationID: pos[0], DocID: *doc})
	if err != nil {
		return env.failOrStop(err)
	}
	if *asJSON {
		env.json(run)
	} else {
		sh := newShower(env)
		r := run.Result
		fmt.Fprintf(env.stderr, "rehome: %s (version %d) ran as cell %d of session %s: %s\n", sh.safe(run.Name), run.Version, r.Cell, r.SessionID, cellLine(r))
		sh.stdout(r.Stdout)
		sh.stderr(r.Stderr)
		for _, f := range r.Files {
			fmt.Fprintf(env.stderr, "rehome: %s %s: %s\n", f.Kind, sh.safe(f.Name), f.Path)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(env.stderr, "rehome: note: %s\n", sh.safe(n))
		}
	}
	switch {
	case env.interrupted(nil):
		return exitInterrupted
	case run.Result.ExitCode != 0 || run.Result.TimedOut || run.Result.OOMKilled:
		return exitFail
	}
	return exitOK
}
