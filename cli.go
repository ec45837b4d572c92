package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"rehome/backend/store"
)

// Exit codes of every subcommand.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// cliEnv is what a subcommand gets: its streams, the logger and access to
// the store. Tests build one over buffers.
type cliEnv struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	log            *slog.Logger
	verbose        bool
	dataDir        string // resolved data directory ("" until needed)

	st *store.Store
}

// command is one row of the subcommand table in main.go.
type command struct {
	name    string
	summary string
	run     func(env *cliEnv, args []string) int
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

// json prints v as indented JSON on stdout.
func (e *cliEnv) json(v any) int {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return e.fail(err)
	}
	return exitOK
}

// fail reports err on one line and returns the failure code.
func (e *cliEnv) fail(err error) int {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	fmt.Fprintf(e.stderr, "rehome: %s\n", msg)
	if e.log != nil {
		e.log.Error("command failed", "err", err)
	}
	return exitFail
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
	d, err := store.DataDir()
	if err != nil {
		return "", err
	}
	e.dataDir = d
	return d, nil
}

// openStore opens the store in the data directory once per command and
// gives up after a second when another rehome holds it.
func (e *cliEnv) openStore() (*store.Store, error) {
	if e.st != nil {
		return e.st, nil
	}
	d, err := e.dir()
	if err != nil {
		return nil, err
	}
	st, err := store.Open(filepath.Join(d, store.FileName), store.Options{})
	if err != nil {
		return nil, err
	}
	e.st = st
	return st, nil
}

// close releases what the command opened.
func (e *cliEnv) close() {
	if e.st != nil {
		e.st.Close()
		e.st = nil
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// dispatch runs the subcommand named by args[0] from table.
func dispatch(env *cliEnv, table []command, group string, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 0 {
			printTable(env.stderr, group, table)
			return exitUsage
		}
		printTable(env.stdout, group, table)
		return exitOK
	}
	for _, c := range table {
		if c.name == args[0] {
			return c.run(env, args[1:])
		}
	}
	return env.usage("unknown command %q for %q (see `%s --help`)", args[0], group, group)
}

func printTable(w io.Writer, group string, table []command) {
	fmt.Fprintf(w, "usage: %s <command> [flags]\n\ncommands:\n", group)
	for _, c := range table {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
}
