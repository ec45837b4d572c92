package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	"rehome/backend/core"
	"rehome/backend/hardware"
)

// Exit codes of every subcommand.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
	// exitInterrupted is a command stopped by Ctrl-C or SIGTERM (128 +
	// SIGINT, as shells report it).
	exitInterrupted = 130
)

// cliEnv is what a subcommand gets: its streams, the logger, its context
// and the core of the data folder. Tests build one over buffers.
type cliEnv struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	log            *slog.Logger
	verbose        bool
	dataDir        string // resolved data directory ("" until needed)
	// ctx ends on Ctrl-C or SIGTERM (main's run): long commands stop, say
	// so and exit with exitInterrupted. nil: never.
	ctx context.Context

	c *core.Core // made on first use, closed with the command
	// shared names the holder whose core c is when the command came
	// through the door (door.go): c is then the holder's, never closed by
	// the command; cwd is the terminal's working folder (see path).
	shared string
	cwd    string
	priv   *core.Core        // a command's own sandbox core beside the holder's (sandboxCore)
	pf     *podmanFlags      // the command's --podman and --runtime, if it takes them
	hw     *hardware.Options // the command's detection sources (hw, fit)

	flagSet *flag.FlagSet // the last one flags made: the command's (probe, man.go)

	version string                // rehome's version (Config.Version)
	assets  func() (fs.FS, error) // the built UI (Config.Assets)
}

// flags returns a FlagSet for subcommand name whose --help prints synopsis
// and the flags to stdout.
func (e *cliEnv) flags(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, "usage: rehome %s\n", synopsis)
		fs.SetOutput(e.stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	e.flagSet = fs
	return fs
}

// parse parses args into fs. ok is false when the command must stop with
// code: 0 after --help, 2 after a bad flag (reported on one line).
func (e *cliEnv) parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	// The flag package prints the usage on any error; keep it for --help.
	help := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = help
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return exitOK, false
	default:
		fmt.Fprintf(e.stderr, "rehome %s: %v (see `rehome %s --help`)\n", fs.Name(), err, fs.Name())
		return exitUsage, false
	}
}

// parseNoArgs is parse for a command that takes flags only: a positional
// argument is a usage error naming the command.
func (e *cliEnv) parseNoArgs(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if code, ok := e.parse(fs, args); !ok {
		return code, false
	}
	if fs.NArg() > 0 {
		return e.usage("%s takes no arguments, got %q (see `rehome %s --help`)", fs.Name(), fs.Arg(0), fs.Name()), false
	}
	return exitOK, true
}

// parseArg is parse for a command that takes exactly one word after its
// flags (fs.Arg(0)): none, or more, is the usage error need.
func (e *cliEnv) parseArg(fs *flag.FlagSet, args []string, need string) (code int, ok bool) {
	if code, ok := e.parse(fs, args); !ok {
		return code, false
	}
	if fs.NArg() != 1 {
		return e.usage("%s", need), false
	}
	return exitOK, true
}

// json prints v as indented JSON on stdout.
func (e *cliEnv) json(v any) int {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return e.fail(err)
	}
	return exitOK
}

// result is where a command on one core call stops on its result: the
// call's error (reported: exitFail), or with asJSON the result v as JSON.
// stop is false when the command goes on to say v in words.
func (e *cliEnv) result(v any, err error, asJSON bool) (code int, stop bool) {
	if err != nil {
		return e.fail(err), true
	}
	if asJSON {
		return e.json(v), true
	}
	return exitOK, false
}

// done ends a command that does one thing: the error err of its core
// call, or the line (format, a) on stdout that says it was done.
func (e *cliEnv) done(err error, format string, a ...any) int {
	if err != nil {
		return e.fail(err)
	}
	fmt.Fprintf(e.stdout, format+"\n", a...)
	return exitOK
}

// fail reports err on one line and returns the failure code; an error
// that Ctrl-C caused is reported as such, with exitInterrupted.
func (e *cliEnv) fail(err error) int {
	if e.interrupted(err) {
		fmt.Fprintln(e.stderr, "rehome: interrupted: stopped and cleaned up")
		return exitInterrupted
	}
	err = cliError(err)
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	fmt.Fprintf(safeWriter(e.stderr), "rehome: %s\n", msg) // a server's words may be in it
	if e.log != nil {
		e.log.Error("command failed", "err", err)
	}
	return exitFail
}

// failOrStop is fail, except that an error Ctrl-C caused ends quietly with
// exitInterrupted: the command's own progress lines have said it stopped.
func (e *cliEnv) failOrStop(err error) int {
	if e.interrupted(err) {
		return exitInterrupted
	}
	return e.fail(err)
}

// failLimits ends a command whose limits core refused: a limit out of
// this machine's safe range is a usage error, worded by format (one %v,
// the error); anything else is a failure.
func (e *cliEnv) failLimits(err error, format string) int {
	var le *core.LimitsError
	if errors.As(err, &le) {
		return e.usage(format, err)
	}
	return e.fail(err)
}

// readyCore opens the core and its database for a command; c is nil
// where that failed, with the code to exit with.
func (e *cliEnv) readyCore() (c *core.Core, code int) {
	c, err := e.core(core.Options{})
	if err != nil {
		return nil, e.fail(err)
	}
	if err := c.Ready(); err != nil {
		return nil, e.fail(err)
	}
	return c, exitOK
}

// usage reports a usage error on one line and returns the usage code.
func (e *cliEnv) usage(format string, a ...any) int {
	fmt.Fprintf(e.stderr, "rehome: "+format+"\n", a...)
	return exitUsage
}

// dir resolves the data directory.
func (e *cliEnv) dir() (string, error) {
	if e.dataDir != "" {
		return e.dataDir, nil
	}
	d, err := core.DefaultDataDir()
	if err != nil {
		return "", err
	}
	e.dataDir = d
	return d, nil
}

// context is the command's context: it ends on Ctrl-C or SIGTERM.
func (e *cliEnv) context() context.Context {
	if e.ctx == nil {
		return context.Background()
	}
	return e.ctx
}

// interruptible returns the command's context with a cancel of its own.
func (e *cliEnv) interruptible() (context.Context, context.CancelFunc) {
	return context.WithCancel(e.context())
}

// interrupted reports whether a command failed because of Ctrl-C (or
// SIGTERM): whatever the failing call said, it was cut short.
func (e *cliEnv) interrupted(error) bool {
	return e.ctx != nil && e.ctx.Err() != nil
}

// storeWait is how long a command waits for another rehome to release the
// database before it says who holds it.
const storeWait = time.Second

// core opens the data folder's services (package core) once per command;
// opts apply to the first call. The log and the data folder are the
// command's.
func (e *cliEnv) core(opts core.Options) (*core.Core, error) {
	if e.shared != "" && e.pf != nil && e.pf.given() {
		return nil, fmt.Errorf("%s holds this data folder and runs this command on its own sandbox: leave out --podman, --identity and --runtime, or close it", e.shared)
	}
	if e.c != nil {
		return e.c, nil
	}
	d, err := e.dir()
	if err != nil {
		return nil, err
	}
	c := core.New(d, e.coreOptions(opts))
	if err := c.Open(); err != nil {
		return nil, err
	}
	e.c = c
	return c, nil
}

// coreOptions completes opts with the command's log and Podman flags.
func (e *cliEnv) coreOptions(opts core.Options) core.Options {
	opts.Log = e.log
	if opts.StoreTimeout == 0 {
		opts.StoreTimeout = storeWait
	}
	if e.pf != nil {
		opts.Sandbox = e.pf.options()
	}
	if e.hw != nil {
		opts.Hardware = *e.hw
	}
	return opts
}

// sandboxCore is the command's core for the sandbox and the hardware
// detection: the one it opened, or one that does not open the database
// (Podman or the hardware is all that these commands need, and a window
// may hold the database).
func (e *cliEnv) sandboxCore() *core.Core {
	if e.shared != "" && e.pf != nil && e.pf.given() {
		// Through the door with a sandbox of its own: a core of the
		// command's, on the flags, beside the holder's.
		if e.priv == nil {
			e.priv = core.New(e.dataDir, e.coreOptions(core.Options{}))
		}
		return e.priv
	}
	if e.c == nil {
		d, _ := e.dir() // main resolved it before any command
		e.c = core.New(d, e.coreOptions(core.Options{}))
	}
	return e.c
}

// openStore opens the core with its defaults, the database ready (held
// until the command ends; one second's wait on another rehome).
func (e *cliEnv) openStore() (*core.Core, error) {
	c, err := e.core(core.Options{})
	if err != nil {
		return nil, err
	}
	if err := c.Ready(); err != nil {
		return nil, err
	}
	return c, nil
}

// close releases what the command opened.
func (e *cliEnv) close() {
	if e.priv != nil {
		e.priv.Close()
		e.priv = nil
	}
	if e.c != nil && e.shared == "" {
		e.c.Close()
		e.c = nil
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
