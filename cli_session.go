package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rehome/sandbox"
)

// cmdSession is `rehome session`: a Code Interpreter that keeps its state
// across cells. A session outlives the command that started it, until it is
// stopped or idle; every command reaches it through Podman.
func cmdSession(env *cliEnv, args []string) int {
	return dispatch(env, []command{
		{"start", "start a session on a file and print its id", cmdSessionStart},
		{"exec", "run a cell in a session (state kept between cells)", cmdSessionExec},
		{"list", "list the sessions and whether they run", cmdSessionList},
		{"interrupt", "interrupt a session's running cell", cmdSessionInterrupt},
		{"restart", "restart a session's kernel (variables are lost, files stay)", cmdSessionRestart},
		{"stop", "stop a session (its cells stay for export)", cmdSessionStop},
		{"export", "write a session's cells and outputs as .ipynb or .py", cmdSessionExport},
	}, "rehome session", args)
}

// sessionDir is the folder of session id, checked to hold one.
func sessionDir(env *cliEnv, id string) (string, error) {
	if id == "" || strings.ContainsAny(id, `/\.`) {
		return "", fmt.Errorf("%q is not a session id (see `rehome session list`)", id)
	}
	dir, err := env.dir()
	if err != nil {
		return "", err
	}
	d := sandbox.SessionDir(dir, id)
	if _, err := os.Stat(filepath.Join(d, "session.json")); err != nil {
		return "", fmt.Errorf("no session %s (see `rehome session list`)", id)
	}
	return d, nil
}

func cmdSessionStart(env *cliEnv, args []string) int {
	fs := env.flags("session start", "session start --file PATH [--timeout 30s] [--idle 30m] [--memory 1GiB] [--cpus 1] [--pids 128] [--json]")
	file := fs.String("file", "", "the `file` the cells work on, seen read-only at /mnt/data/<name>")
	timeout := fs.Duration("timeout", sandbox.DefaultLimits.Timeout, "each cell's time `limit` (then KeyboardInterrupt)")
	idle := fs.Duration("idle", sandbox.DefaultIdleTimeout, "end the session after this `time` without a cell")
	memory := fs.String("memory", "1GiB", "memory `ceiling` of the whole session (KiB, MiB, GiB)")
	cpus := fs.Float64("cpus", sandbox.DefaultLimits.CPUs, "CPU `cores` the session may use")
	pids := fs.Int64("pids", sandbox.DefaultLimits.Pids, "most `processes` and threads at once")
	asJSON := fs.Bool("json", false, "print the session as JSON")
	pf := addPodmanFlags(fs)
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	mem, err := sandbox.ParseBytes(*memory)
	if err != nil {
		return env.usage("--memory: %v", err)
	}
	lim := sandbox.Limits{Timeout: *timeout, Memory: mem, CPUs: *cpus, Pids: *pids}.WithDefaults()
	if err := lim.Validate(); err != nil {
		return env.usage("%v", err)
	}
	dir, err := env.dir()
	if err != nil {
		return env.fail(err)
	}
	ctx, e, done, err := pf.connect()
	if err != nil {
		return env.fail(err)
	}
	defer done()
	id := sandbox.NewRunID()
	s, err := e.StartSession(ctx, sandbox.SessionRequest{ID: id, InputPath: *file, Limits: lim, IdleTimeout: *idle,
		Dir: sandbox.SessionDir(dir, id), Detached: true})
	if err != nil {
		return env.fail(fmt.Errorf("the session could not start: %w", err))
	}
	s.Close()
	if *asJSON {
		return env.json(s.Info())
	}
	fmt.Fprintln(env.stdout, s.ID())
	return exitOK
}

func cmdSessionExec(env *cliEnv, args []string) int {
	fs := env.flags("session exec", "session exec ID [--timeout D] [--json] SCRIPT.py|-")
	timeout := fs.Duration("timeout", 0, "this cell's time `limit` (default: the session's)")
	asJSON := fs.Bool("json", false, "print the cell's result as JSON")
	pf := addPodmanFlags(fs)
	if code, ok := env.parse(fs, args); !ok {
		return code
	}
	if fs.NArg() != 2 {
		return env.usage("session exec takes a session id and a script (a .py file, or - for stdin)")
	}
	dir, err := sessionDir(env, fs.Arg(0))
	if err != nil {
		return env.fail(err)
	}
	code, err := readScript(env, fs.Arg(1))
	if err != nil {
		return env.fail(err)
	}
	ctx, e, done, err := pf.connect()
	if err != nil {
		return env.fail(err)
	}
	defer done()
	s, err := e.OpenSession(ctx, dir)
	if err != nil {
		return env.fail(err)
	}
	defer s.Close()
	res, err := s.Exec(ctx, code, *timeout, func(p sandbox.Progress) {
		switch {
		case *asJSON:
		case p.Stage == "output" && p.Stream == "stdout":
			io.WriteString(env.stdout, p.Text)
		case p.Stage == "output":
			io.WriteString(env.stderr, p.Text)
		}
	})
	if err != nil {
		return env.fail(err)
	}
	if *asJSON {
		env.json(res)
	} else {
		printDisplays(env, res.Displays, res.Cell)
		printRunSummary(env, &res.Result)
		if res.StateLost {
			fmt.Fprintf(env.stderr, "rehome: STATE LOST: %s\n", res.LostReason)
		}
	}
	if res.Status != "ok" {
		return exitFail
	}
	return exitOK
}

// printDisplays prints the values the code showed, Jupyter style: Out[n]
// for the last expression's.
func printDisplays(env *cliEnv, ds []sandbox.Display, cell int) {
	for _, d := range ds {
		text := d.Text
		if d.Kind == "image" {
			text = "<figure " + d.File + ">"
		}
		if d.Result && cell > 0 {
			fmt.Fprintf(env.stdout, "Out[%d]: ", cell)
			if strings.Contains(text, "\n") {
				fmt.Fprintln(env.stdout)
			}
		}
		fmt.Fprintln(env.stdout, strings.TrimRight(text, "\n"))
	}
}

func cmdSessionList(env *cliEnv, args []string) int {
	fs := env.flags("session list", "session list [--json]")
	asJSON := fs.Bool("json", false, "print the sessions as JSON")
	pf := addPodmanFlags(fs)
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	dir, err := env.dir()
	if err != nil {
		return env.fail(err)
	}
	ctx, e, done, err := pf.connect()
	if err != nil {
		return env.fail(err)
	}
	defer done()
	list, err := e.ListSessions(ctx, filepath.Join(dir, "sessions"))
	if err != nil {
		return env.fail(err)
	}
	if *asJSON {
		if list == nil {
			list = []sandbox.SessionInfo{}
		}
		return env.json(list)
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
}

// sessionControl is interrupt, restart and stop: one id, one action.
func sessionControl(env *cliEnv, name string, args []string, act func(*sandbox.Session) error) int {
	fs := env.flags("session "+name, "session "+name+" ID")
	pf := addPodmanFlags(fs)
	if code, ok := env.parse(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return env.usage("session %s takes a session id", name)
	}
	dir, err := sessionDir(env, fs.Arg(0))
	if err != nil {
		return env.fail(err)
	}
	ctx, e, done, err := pf.connect()
	if err != nil {
		return env.fail(err)
	}
	defer done()
	if name == "stop" {
		if err := e.StopSessionByID(ctx, fs.Arg(0)); err != nil {
			return env.fail(err)
		}
		fmt.Fprintf(env.stderr, "rehome: session %s stopped; its cells stay for `rehome session export`\n", fs.Arg(0))
		return exitOK
	}
	s, err := e.OpenSession(ctx, dir)
	if err != nil {
		return env.fail(err)
	}
	defer s.Close()
	if err := act(s); err != nil {
		return env.fail(err)
	}
	return exitOK
}

func cmdSessionInterrupt(env *cliEnv, args []string) int {
	return sessionControl(env, "interrupt", args, func(s *sandbox.Session) error { return s.Interrupt() })
}

func cmdSessionRestart(env *cliEnv, args []string) int {
	return sessionControl(env, "restart", args, func(s *sandbox.Session) error {
		ctx, cancel := interruptible()
		defer cancel()
		return s.Restart(ctx)
	})
}

func cmdSessionStop(env *cliEnv, args []string) int {
	return sessionControl(env, "stop", args, nil)
}

func cmdSessionExport(env *cliEnv, args []string) int {
	fs := env.flags("session export", "session export ID -o FILE.ipynb|FILE.py")
	out := fs.String("o", "", "the `file` to write: .ipynb (a Jupyter notebook with outputs) or .py")
	if code, ok := env.parse(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 || *out == "" {
		return env.usage("session export takes a session id and -o FILE.ipynb|FILE.py")
	}
	dir, err := sessionDir(env, fs.Arg(0))
	if err != nil {
		return env.fail(err)
	}
	cells, err := sandbox.ReadCells(dir)
	if err != nil {
		return env.fail(err)
	}
	var buf bytes.Buffer
	switch strings.ToLower(filepath.Ext(*out)) {
	case ".ipynb":
		err = sandbox.WriteNotebook(&buf, cells)
	case ".py":
		err = sandbox.WritePython(&buf, cells)
	default:
		return env.usage("-o %s: name a .ipynb or a .py file", *out)
	}
	if err != nil {
		return env.fail(err)
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return env.fail(fmt.Errorf("write %s: %w", *out, err))
	}
	fmt.Fprintf(env.stderr, "rehome: %d cells → %s\n", len(cells), *out)
	return exitOK
}
