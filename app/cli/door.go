package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/term"

	"rehome/app"
	"rehome/app/door"
	"rehome/backend/core"
)

// The terminal beside the window. While a window or `rehome serve` holds
// a data folder's database, a command typed in a terminal does not open
// it (it would wait on the lock and fail): it sends its command line to
// the holder over an owner-only socket (package door), and the holder runs
// the very same command function with the terminal's streams, its working
// folder and a context that Ctrl-C ends. Every command is thus the same
// either way by construction, and what it adds the window lists at once:
// it is the window's core that wrote it.
//
// The rule for what crosses: every command but those in runsHere (the
// tree's here and bare ones, tree.go).

// viaDoor runs args in the process that holds data folder dir, if one
// does; ok is false when none does (the terminal then opens it itself).
func (e *cliEnv) viaDoor(dir string, args []string) (code int, ok bool) {
	c, err := door.Dial(dir)
	if errors.Is(err, door.ErrNoHolder) {
		return 0, false
	}
	if err != nil {
		return e.fail(err), true
	}
	cwd, err := os.Getwd()
	if err != nil {
		c.Close()
		return e.fail(fmt.Errorf("find the working folder: %w", err)), true
	}
	req := door.Request{
		Version: e.version, Args: args, Cwd: cwd, Env: doorEnviron(), Verbose: e.verbose,
		StdinTTY: isTerminal(e.stdin), StdoutTTY: isTerminal(e.stdout), StderrTTY: isTerminal(e.stderr),
	}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	cl := door.Client{Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, Interrupt: sig, ReadSecret: func() ([]byte, error) {
		return readNoEcho(e.stdin)
	}}
	code, acc, err := cl.Call(c, req)
	if err != nil {
		return e.fail(err), true
	}
	e.log.Debug("ran through the holder", "holder", acc.Holder, "pid", acc.PID, "code", code)
	return code, true
}

// doorEnviron is the client's values of door.Environ.
func doorEnviron() map[string]string {
	env := map[string]string{}
	for _, k := range door.Environ {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	return env
}

// readNoEcho reads a line from the terminal r without echo: the
// terminal's own, or the client's through the door.
func readNoEcho(r any) ([]byte, error) {
	if s, ok := r.(interface{ ReadSecret() ([]byte, error) }); ok {
		return s.ReadSecret()
	}
	f, ok := r.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, errors.New("stdin is not a terminal")
	}
	return term.ReadPassword(int(f.Fd()))
}

// Door answers the terminal's commands for the data folder a window or
// `rehome serve` holds (see above).
type Door struct {
	stop context.CancelFunc
	done chan struct{}
}

// DoorConfig is what a holder hands OpenDoor.
type DoorConfig struct {
	Holder  string                // in words: "the window", "rehome serve"
	Version string                // rehome's version
	Assets  func() (fs.FS, error) // the built UI (for `doctor`)
	Log     *slog.Logger
}

// OpenDoor starts answering the terminal's commands with h's core, which
// must be open (it holds the database). Close it before closing h.
func OpenDoor(h *app.Host, cfg DoorConfig) (*Door, error) {
	c := h.Core()
	if err := c.Ready(); err != nil {
		return nil, err
	}
	ln, err := door.Listen(c.DataDir())
	if err != nil {
		return nil, err
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	ctx, stop := context.WithCancel(context.Background())
	d := &Door{stop: stop, done: make(chan struct{})}
	hold := &holder{c: c, cfg: cfg}
	go func() {
		defer close(d.done)
		if err := door.Serve(ctx, ln, door.ServeOptions{Holder: cfg.Holder, Version: cfg.Version, Log: cfg.Log}, hold.run); err != nil {
			cfg.Log.Error("terminal socket", "err", err)
		}
	}()
	cfg.Log.Info("terminal socket open", "addr", ln.Addr().String())
	return d, nil
}

// doorCloseWait bounds how long Close waits for the commands it
// cancelled: one stuck in a call does not hold the window open.
const doorCloseWait = 10 * time.Second

// Close stops taking commands, cancels those running and waits for them
// a while.
func (d *Door) Close() {
	d.stop()
	select {
	case <-d.done:
	case <-time.After(doorCloseWait):
	}
}

// holder runs a client's command with the holder's core.
type holder struct {
	c   *core.Core
	cfg DoorConfig
}

func (h *holder) run(ctx context.Context, req door.Request, s door.Streams) int {
	env := &cliEnv{
		stdout: s.Stdout, stderr: s.Stderr, stdin: s.Stdin,
		log: h.cfg.Log, verbose: req.Verbose, dataDir: h.c.DataDir(), ctx: ctx,
		c: h.c, shared: h.cfg.Holder, cwd: req.Cwd,
		version: h.cfg.Version, assets: h.cfg.Assets,
	}
	if env.assets == nil {
		env.assets = noAssets
	}
	if runsHere(req.Args) {
		return env.usage("`rehome %s` runs in the terminal, not in %s", req.Args[0], h.cfg.Holder)
	}
	for _, k := range door.Environ {
		mine, theirs := os.Getenv(k), req.Env[k]
		if mine != theirs {
			fmt.Fprintf(env.stderr, "rehome: note: %s (pid %d) holds this data folder and runs this command with its own %s=%q, not yours (%q)\n", h.cfg.Holder, os.Getpid(), k, mine, theirs)
		}
	}
	defer env.close()
	return dispatch(env, tree(), "rehome", req.Args)
}

// held says whether c is the holder's core, which a command through the
// door uses but never closes, nor its engine (the window's runs and
// sessions are on it).
func (e *cliEnv) held(c *core.Core) bool { return e.shared != "" && c == e.c }

// paths is path of each of ps.
func (e *cliEnv) paths(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = e.path(p)
	}
	return out
}

// path is a path the user gave, read from the terminal's working folder
// when a holder runs the command (its own working folder is not the
// terminal's).
func (e *cliEnv) path(p string) string {
	if e.cwd == "" || p == "" || p == "-" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(e.cwd, p)
}

// WindowDoor is window.Config's Door: the window answers the terminal's
// commands as `rehome serve` does.
func WindowDoor(cfg Config) func(h *app.Host, log *slog.Logger) func() {
	return func(h *app.Host, log *slog.Logger) func() {
		d, err := OpenDoor(h, DoorConfig{Holder: "the window", Version: cfg.Version, Assets: cfg.Assets, Log: log})
		if err != nil {
			log.Warn("commands in a terminal cannot reach this data folder while the window is open", "err", err)
			return func() {}
		}
		return d.Close
	}
}
