package cli

// What the area commands (library, knowledge, canvas, mcp, actions, …)
// share: their start (the words, then the service of core they work on)
// and the end of their lists.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"rehome/backend/core"
)

// service opens the core and its database for a command and returns one
// of its services: service(env, (*core.Core).Browse). It is nil where the
// opening failed (reported), with the code to exit with. Each area has
// its getter over it (browseService, …).
func service[S any](env *cliEnv, of func(*core.Core) *S) (*S, int) {
	c, code := env.readyCore()
	if c == nil {
		return nil, code
	}
	return of(c), exitOK
}

// coreService is service without the wait for the database: for an area
// that works before it is ready (through the door of a window still
// starting), the carried models.
func coreService[S any](env *cliEnv, of func(*core.Core) *S) (*S, int) {
	c, err := env.core(core.Options{})
	if err != nil {
		return nil, env.fail(err)
	}
	return of(c), exitOK
}

// parseFor is the start of a command on one area: its flags and exactly
// n words (interspersedN, with need as the usage error), then the area's
// service from its getter, opened only once the words are right. svc is
// nil where the command must stop, with code.
func parseFor[S any](env *cliEnv, fs *flag.FlagSet, args []string, n int, need string, open func(*cliEnv) (*S, int)) (words []string, svc *S, code int) {
	words, code, ok := interspersedN(env, fs, args, n, need)
	if !ok {
		return nil, nil, code
	}
	svc, code = open(env)
	return words, svc, code
}

// begin is the start of a command on one area: its flags and words
// parsed from args, then the area's service. svc is nil where the command
// must stop, with code. takes and auditWords make one.
type begin[S any] func(env *cliEnv, fs *flag.FlagSet, args []string) (words []string, svc *S, code int)

// takes is the begin of parseFor: exactly n words, else the usage error
// need, then the service from its getter open.
func takes[S any](n int, need string, open func(*cliEnv) (*S, int)) begin[S] {
	return func(env *cliEnv, fs *flag.FlagSet, args []string) ([]string, *S, int) {
		return parseFor(env, fs, args, n, need, open)
	}
}

// parseAtLeast is parseFor wanting n words or more (the flags before,
// between or after them); fewer is the usage error need.
func parseAtLeast[S any](env *cliEnv, fs *flag.FlagSet, args []string, n int, need string, open func(*cliEnv) (*S, int)) (words []string, svc *S, code int) {
	words, code, ok := parseInterspersed(env, fs, args)
	if !ok {
		return nil, nil, code
	}
	if len(words) < n {
		return nil, nil, env.usage("%s", need)
	}
	svc, code = open(env)
	return words, svc, code
}

// runOn is a command on one area whose work is more than one core call
// and its answer: once begin has its words and service, run does the
// rest and returns the exit code.
func runOn[S any](env *cliEnv, fs *flag.FlagSet, args []string, start begin[S], run func(words []string, svc *S) int) int {
	words, svc, code := start(env, fs, args)
	if svc == nil {
		return code
	}
	return run(words, svc)
}

// runStoppable is runOn for a command whose work Ctrl-C may stop: run
// gets the command's context (env.interruptible), cancelled once it
// returns.
func runStoppable[S any](env *cliEnv, fs *flag.FlagSet, args []string, start begin[S], run func(ctx context.Context, words []string, svc *S) int) int {
	return runOn(env, fs, args, start, func(words []string, svc *S) int {
		ctx, cancel := env.interruptible()
		defer cancel()
		return run(ctx, words, svc)
	})
}

// answer is a command on one area that makes one core call and says its
// answer: begin's words and service, call on them, then the call's error
// (reported) or, with asJSON set, the answer as JSON (env.result); else
// say prints it in words. asJSON is nil for a command without --json.
func answer[S, T any](env *cliEnv, fs *flag.FlagSet, args []string, start begin[S], asJSON *bool, call func(svc *S, words []string) (T, error), say func(v T, words []string)) int {
	return runOn(env, fs, args, start, func(words []string, svc *S) int {
		v, err := call(svc, words)
		if code, stop := env.result(v, err, asJSON != nil && *asJSON); stop {
			return code
		}
		say(v, words)
		return exitOK
	})
}

// listOf is a list command that takes flags only: fs (the command's, its
// own flags on it) gets --json, no word is taken, then the area's service
// from its getter open, the items from list, printed by printList.
func listOf[S, T any](env *cliEnv, fs *flag.FlagSet, args []string, open func(*cliEnv) (*S, int), list func(*S) ([]T, error), empty string, t table[T]) int {
	asJSON := fs.Bool("json", false, "print the list as JSON")
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	svc, code := open(env)
	if svc == nil {
		return code
	}
	items, err := list(svc)
	return printList(env, items, err, *asJSON, empty, t)
}

// table is how a list prints: a header line and one row an item, their
// cells separated by tabs and aligned two spaces apart.
type table[T any] struct {
	header string
	row    func(T) string // the item's cells, joined by tabs
}

// print writes the header and the items' rows to w, aligned. (The lists
// were written with a minimum cell width of 0 or 2 and a tab width of 0
// or 4: padded with spaces, two of them, every such table is the same.)
func (t table[T]) print(w io.Writer, items []T) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, t.header)
	for _, it := range items {
		fmt.Fprintln(tw, t.row(it))
	}
	tw.Flush()
}

// printList ends a list command on its core call's items and error: the
// error (env.result), the items as JSON with asJSON, the line empty on
// stdout when there are none, else their table on stdout.
func printList[T any](env *cliEnv, items []T, err error, asJSON bool, empty string, t table[T]) int {
	if code, stop := env.result(items, err, asJSON); stop {
		return code
	}
	if len(items) == 0 {
		fmt.Fprintln(env.stdout, empty)
		return exitOK
	}
	t.print(env.stdout, items)
	return exitOK
}
