package cli

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"rehome/app"
	"rehome/backend/logs"
)

// Config is what the entry (main.go) hands the CLI.
type Config struct {
	Version string                // rehome's version
	Assets  func() (fs.FS, error) // the built UI, for `rehome serve` and `rehome doctor`
}

// Run runs the command line args (without the program's name) in the
// terminal and returns the exit code. Leading flags: -v/--verbose,
// --version, -h/--help.
func Run(args []string, cfg Config) int {
	// Every string printed to a terminal goes through one filter (term.go).
	env := &cliEnv{stdout: safeWriter(os.Stdout), stderr: safeWriter(os.Stderr), stdin: os.Stdin, version: cfg.Version, assets: cfg.Assets}
	if env.assets == nil {
		env.assets = noAssets
	}
	app.Version = cfg.Version
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-v", "--verbose":
			env.verbose = true
		case "--version":
			args[0] = "version"
			continue
		case "-h", "--help":
			tree().printHelp(env, env.stdout, "rehome")
			return exitOK
		default:
			return env.usage("unknown flag %s (see `rehome --help`)", args[0])
		}
		args = args[1:]
	}
	// The help, the manual page and the completion touch no data.
	if runsBare(args) {
		return guarded(env, args)
	}
	dir, err := env.dir()
	if err != nil {
		return env.fail(err)
	}
	log, closeLog := logs.New(logs.Options{Dir: dir, Verbose: env.verbose, Stderr: env.stderr})
	defer closeLog()
	env.log = log
	defer env.close()
	// Beside a window or `rehome serve`, the command runs in it (door.go).
	if !runsHere(args) {
		if code, ok := env.viaDoor(dir, args); ok {
			return code
		}
	}

	// Ctrl-C and SIGTERM end the command's context: every long command —
	// a run, an image save, an answer, serve — stops its work, cleans up
	// and exits with exitInterrupted. A second Ctrl-C ends rehome at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); stop() }()
	env.ctx = ctx
	return guarded(env, args)
}

// guarded runs the command; a panic in it (outside bytes it parsed) is
// one line in words and exit 1, never a Go stack trace.
func guarded(env *cliEnv, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = env.fail(app.PanicError(env.log, "rehome "+strings.Join(args[:min(len(args), 2)], " "), r))
		}
	}()
	return dispatch(env, tree(), "rehome", args)
}

// noAssets is the UI of a build without one.
func noAssets() (fs.FS, error) {
	return nil, errors.New("this build of rehome has no UI built in: rebuild it with `make build`")
}

func cmdVersion(env *cliEnv, args []string) int {
	fs := env.flags("version", "version")
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	env.stdout.Write([]byte("rehome " + env.version + "\n"))
	return exitOK
}
