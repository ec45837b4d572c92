package cli

import (
	"fmt"
	"io"
	"strings"
)

// command is one command of the tree (commands.go): a leaf runs; a group
// has subcommands and, for a few, a run of its own for what names none
// (its flags, or nothing: models lists the catalog, settings shows them,
// audit runs one).
type command struct {
	name    string
	summary string
	run     func(env *cliEnv, args []string) int
	subs    []command
	// here: it runs in the terminal even beside a holder (door.go).
	here bool
	// bare: it touches no data folder, and runs before one is resolved
	// (so also here).
	bare bool
	// hidden: left out of the help, the manual and the completion.
	hidden bool
}

// sub is c's subcommand name.
func (c command) sub(name string) (command, bool) {
	for _, s := range c.subs {
		if s.name == name {
			return s, true
		}
	}
	return command{}, false
}

// shown is c's subcommands but the hidden ones.
func (c command) shown() []command {
	var out []command
	for _, s := range c.subs {
		if !s.hidden {
			out = append(out, s)
		}
	}
	return out
}

// line is c's summary as a table lists it: a group's followed by its
// subcommands' names.
func (c command) line() string {
	subs := c.shown()
	if len(subs) == 0 {
		return c.summary
	}
	names := make([]string, len(subs))
	for i, s := range subs {
		names[i] = s.name
	}
	return c.summary + " (" + strings.Join(names, ", ") + ")"
}

// walk is the commands args name from c down (rehome session relay →
// session, relay); it stops at the first word that names none.
func (c command) walk(args []string) []command {
	var path []command
	for _, a := range args {
		s, ok := c.sub(a)
		if !ok {
			break
		}
		path = append(path, s)
		c = s
	}
	return path
}

// dispatch runs args on group c, whose command line so far is path
// ("rehome", "rehome sandbox image"). A word that names a subcommand runs
// it; -h, --help or help prints c's help, nothing too (on stderr, a usage
// error) unless c has a run of its own; flags run that run; any other
// word is an unknown command.
func dispatch(env *cliEnv, c command, path string, args []string) int {
	if len(args) == 0 && c.run != nil {
		return c.run(env, args)
	}
	if len(args) == 0 {
		c.printHelp(env, env.stderr, path)
		return exitUsage
	}
	if s, ok := c.sub(args[0]); ok {
		if len(s.subs) > 0 {
			return dispatch(env, s, path+" "+s.name, args[1:])
		}
		return s.run(env, args[1:])
	}
	switch args[0] {
	case "-h", "--help", "help":
		c.printHelp(env, env.stdout, path)
		return exitOK
	}
	if c.run != nil && strings.HasPrefix(args[0], "-") {
		return c.run(env, args)
	}
	return env.usage("unknown command %q for %q (see `%s --help`)", args[0], path, path)
}

// printHelp writes group c's help to w: its own run's usage first, if it
// has one, then its subcommands.
func (c command) printHelp(env *cliEnv, w io.Writer, path string) {
	if c.run != nil {
		out := *env
		out.stdout = w
		c.run(&out, []string{"--help"})
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "usage: %s <command> [flags]\n\n", path)
	}
	fmt.Fprintln(w, "commands:")
	subs := c.shown()
	width := 12
	for _, s := range subs {
		width = max(width, len(s.name))
	}
	for _, s := range subs {
		fmt.Fprintf(w, "  %-*s %s\n", width, s.name, s.line())
	}
}

// runsHere says whether the terminal runs args itself even when a holder
// is there (door.go): no command (the help), or one marked here or bare in
// the tree — serve (it becomes a holder: beside another one it says so),
// the help, the version, the manual and the completion (they touch no
// data), hw and fit (this machine's hardware, with the terminal's own
// detection flags; no database), session relay (the process a session
// start leaves; it serves its session on a socket of its own) and mcp
// config (it writes an MCP host's file naming this binary, and reads no
// data).
func runsHere(args []string) bool {
	if len(args) == 0 {
		return true
	}
	for _, c := range tree().walk(args) {
		if c.here || c.bare {
			return true
		}
	}
	return false
}

// runsBare says whether args name a command that touches no data folder.
func runsBare(args []string) bool {
	path := tree().walk(args)
	return len(path) > 0 && path[0].bare
}

// cmdHelp is `rehome help [COMMAND…]`: the commands, or what `rehome
// COMMAND… --help` prints.
func cmdHelp(env *cliEnv, args []string) int {
	fs := env.flags("help", "help [COMMAND…]")
	if code, ok := env.parse(fs, args); !ok {
		return code
	}
	return dispatch(env, tree(), "rehome", append(fs.Args(), "--help"))
}
