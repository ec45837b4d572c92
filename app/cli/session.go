package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"rehome/backend/atomicfile"
	"rehome/backend/core"
)

// sessions is the core's sessions for what needs only the data folder
// (the id rule, cells, export): the command's core if it has one, else one
// that opens nothing and is not kept (a later env.core opens its own).
func (env *cliEnv) sessions() *core.Sessions {
	if env.c != nil {
		return env.c.Sessions()
	}
	d, _ := env.dir()
	return core.New(d, core.Options{Log: env.log}).Sessions()
}

// sessionDir is the folder of session id, checked to hold one.
func sessionDir(env *cliEnv, id string) (string, error) {
	d, err := env.sessions().Find(id)
	if err != nil {
		return "", fmt.Errorf("%w (see `rehome session list`)", err)
	}
	return d, nil
}

func cmdSessionExec(env *cliEnv, args []string) int {
	fs := env.flags("session exec", "session exec ID [--timeout D] [--json] SCRIPT.py|-")
	timeout := fs.Duration("timeout", 0, "this cell's time `limit` (default: the session's)")
	asJSON := fs.Bool("json", false, "print the cell's result as JSON")
	id, args := idFirst(args)
	if code, ok := env.parse(fs, args); !ok {
		return code
	}
	rest := fs.Args()
	if id == "" && len(rest) > 0 {
		id, rest = rest[0], rest[1:]
	}
	if id == "" || len(rest) != 1 {
		return env.usage("session exec takes a session id and a script (a .py file, or - for stdin)")
	}
	dir, err := sessionDir(env, id)
	if err != nil {
		return env.fail(err)
	}
	code, err := readScript(env, rest[0])
	if err != nil {
		return env.fail(err)
	}
	ctx, cancel := env.interruptible() // Ctrl-C interrupts the cell
	defer cancel()
	s, err := core.OpenSession(ctx, dir)
	if err != nil {
		return env.fail(err)
	}
	defer s.Close()
	show := newShower(env)
	// The cell joins the file's history like a run, as the window's cells
	// do (shown again when the file is opened later): the core keeps it,
	// the database open only for it (a window may hold it: then it waits
	// a while).
	c, err := env.core(core.Options{Brief: true, StoreTimeout: runProbeWait})
	if err != nil {
		c = env.sandboxCore() // the cell runs; its record is not kept
	}
	res, err := c.Sessions().Exec(ctx, s, code, *timeout, func(p core.Progress) {
		switch {
		case *asJSON:
		case p.Stage == "output" && p.Stream == "stdout":
			show.stdout(p.Text)
		case p.Stage == "output":
			show.stderr(p.Text)
		}
	})
	if res == nil {
		return env.fail(err)
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "rehome: %v (the cell's result is printed but not kept)\n", err)
	}
	if *asJSON {
		env.json(res)
	} else {
		show.flush()
		printDisplays(show, res.Displays, res.Cell)
		printRunSummary(env, &res.Result, show.safe)
		if res.StateLost {
			fmt.Fprintf(env.stderr, "rehome: STATE LOST: %s\n", res.LostReason)
		}
	}
	switch {
	case res.Status != "ok" && ctx.Err() != nil:
		return exitInterrupted // Ctrl-C interrupted the cell: said above, the session's state kept
	case res.Status != "ok":
		return exitFail
	}
	return exitOK
}

// printDisplays prints the values the code showed, Jupyter style: Out[n]
// for the last expression's.
func printDisplays(show *shower, ds []core.Display, cell int) {
	for _, d := range ds {
		text := d.Text
		if d.Kind == "image" {
			text = "<figure " + d.File + ">"
		}
		if d.Result && cell > 0 {
			show.stdout(fmt.Sprintf("Out[%d]: ", cell))
			if strings.Contains(text, "\n") {
				show.stdout("\n")
			}
		}
		// The value is the code's: neutralised on a terminal like its output.
		show.stdout(strings.TrimRight(text, "\n") + "\n")
	}
	show.flush()
}

func cmdSessionList(env *cliEnv, args []string) int {
	fs := env.flags("session list", "session list [--json]")
	asJSON := fs.Bool("json", false, "print the sessions as JSON")
	return env.withEngine(fs, args, "", func(ctx context.Context, _ *core.Sandbox) int {
		list, err := env.sandboxCore().Sessions().List(ctx)
		if code, stop := env.result(list, err, *asJSON); stop {
			return code
		}
		if len(list) == 0 {
			fmt.Fprintln(env.stderr, "rehome: no sessions; start one with `rehome session start --file F`")
			return exitOK
		}
		for _, s := range list {
			state := "ended"
			if s.Running {
				state = "running"
			}
			file := "-"
			if s.Input != nil {
				file = s.Input.HostPath
			}
			fmt.Fprintf(env.stdout, "%s  %-7s  %3d cells  %s  %s\n", s.ID, state, s.Cells, s.Created.Local().Format("2006-01-02 15:04"), file)
		}
		return exitOK
	})
}

// sessionControl is interrupt, restart and stop: one id, one action of
// core.Sessions (through the session's relay).
func sessionControl(env *cliEnv, name string, args []string, act func(context.Context, *core.Sessions, string) error) int {
	fs := env.flags("session "+name, "session "+name+" ID")
	if code, ok := env.parseArg(fs, args, "session "+name+" takes a session id"); !ok {
		return code
	}
	ctx, cancel := env.interruptible()
	defer cancel()
	var idErr *core.SessionIDError
	if err := act(ctx, env.sessions(), fs.Arg(0)); errors.As(err, &idErr) {
		return env.fail(fmt.Errorf("%w (see `rehome session list`)", err))
	} else if err != nil {
		return env.fail(err)
	}
	return exitOK
}

func cmdSessionInterrupt(env *cliEnv, args []string) int {
	return sessionControl(env, "interrupt", args, func(ctx context.Context, s *core.Sessions, id string) error { return s.Interrupt(ctx, id) })
}

func cmdSessionRestart(env *cliEnv, args []string) int {
	return sessionControl(env, "restart", args, func(ctx context.Context, s *core.Sessions, id string) error { return s.Restart(ctx, id) })
}

func cmdSessionStop(env *cliEnv, args []string) int {
	return sessionControl(env, "stop", args, func(ctx context.Context, s *core.Sessions, id string) error {
		if err := s.Stop(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(env.stderr, "rehome: session %s stopped; its cells stay for `rehome session export`\n", id)
		return nil
	})
}

func cmdSessionExport(env *cliEnv, args []string) int {
	fs := env.flags("session export", "session export ID -o FILE.ipynb|FILE.py")
	out := fs.String("o", "", "the `file` to write: .ipynb (a Jupyter notebook with outputs) or .py")
	id, args := idFirst(args)
	if code, ok := env.parse(fs, args); !ok {
		return code
	}
	if id == "" && fs.NArg() == 1 {
		id = fs.Arg(0)
	} else if fs.NArg() != 0 {
		id = ""
	}
	if id == "" || *out == "" {
		return env.usage("session export takes a session id and -o FILE.ipynb|FILE.py")
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(*out)), ".")
	if !slices.Contains(core.ExportFormats, format) {
		return env.usage("-o %s: name a .ipynb or a .py file", *out)
	}
	if _, err := sessionDir(env, id); err != nil {
		return env.fail(err)
	}
	data, cells, err := env.sessions().Export(id, format)
	if err != nil {
		return env.fail(err)
	}
	*out = env.path(*out)
	if err := atomicfile.WriteFile(*out, data, 0o644); err != nil {
		return env.fail(fmt.Errorf("write %s: %w", *out, err))
	}
	fmt.Fprintf(env.stderr, "rehome: %d cells → %s\n", cells, *out)
	return exitOK
}

// idFirst takes a leading session id off args, so that flags may follow it
// (`session exec ID --json -`).
func idFirst(args []string) (string, []string) {
	if len(args) > 0 && args[0] != "-" && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "", args
}
