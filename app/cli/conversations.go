package cli

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rehome/backend/atomicfile"
	"rehome/backend/core"
)

// convService is the kept conversations' service; it does not wait for
// the database (see coreService).
func convService(env *cliEnv) (*core.Conversations, int) {
	return coreService(env, (*core.Core).Conversations)
}

// oneConversation is the start of a command on one conversation (or one
// export file): its word, before or after the flags (parseOne, else the
// usage error need), then the conversations. svc is nil where the command
// must stop, with code.
func oneConversation(env *cliEnv, fs *flag.FlagSet, args []string, need string) (word string, svc *core.Conversations, code int) {
	word, code, ok := parseOne(env, fs, args, need)
	if !ok {
		return "", nil, code
	}
	svc, code = convService(env)
	return word, svc, code
}

func cmdConvList(env *cliEnv, args []string) int {
	fs := env.flags("conversations list", "conversations list [--json]")
	asJSON := fs.Bool("json", false, "print as JSON")
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	list := func(svc *core.Conversations) ([]core.ConversationSummary, error) { return svc.List(0) }
	return printConvsOf(env, list, *asJSON, "rehome: no conversations yet (ask one with `rehome ask --file data.csv \"a question\"`, or bring ChatGPT's with `rehome conversations import EXPORT.zip`)")
}

func cmdConvSearch(env *cliEnv, args []string) int {
	fs := env.flags("conversations search", "conversations search [--json] WORDS…")
	asJSON := fs.Bool("json", false, "print as JSON")
	var words []string
	for _, a := range args {
		if a == "--json" || a == "-json" {
			*asJSON = true
		} else if a == "-h" || a == "-help" || a == "--help" {
			fs.Usage()
			return exitOK
		} else if strings.HasPrefix(a, "-") {
			return env.usage("conversations search: unknown flag %s (only --json)", a)
		} else {
			words = append(words, a)
		}
	}
	if len(words) == 0 {
		return env.usage("conversations search: give the words to look for")
	}
	search := func(svc *core.Conversations) ([]core.ConversationSummary, error) {
		return svc.Search(strings.Join(words, " "), 0)
	}
	return printConvsOf(env, search, *asJSON, "rehome: no conversation holds all of those words")
}

// printConvsOf ends conversations list and search: the summaries that
// find returns of the conversations, printed by printConvs (none: the
// line said when there are none), or find's error.
func printConvsOf(env *cliEnv, find func(*core.Conversations) ([]core.ConversationSummary, error), asJSON bool, none string) int {
	svc, code := convService(env)
	if svc == nil {
		return code
	}
	cs, err := find(svc)
	if err != nil {
		return env.fail(err)
	}
	return printConvs(env, cs, asJSON, none)
}

func printConvs(env *cliEnv, cs []core.ConversationSummary, asJSON bool, none string) int {
	if asJSON {
		return env.json(cs)
	}
	if len(cs) == 0 {
		fmt.Fprintln(env.stderr, none)
	}
	w := safeWriter(env.stdout) // titles and model names may hold what a server sent
	for _, c := range cs {
		when, n := "????-??-?? ??:??", "?"
		if !c.Updated.IsZero() {
			when = c.Updated.Local().Format("2006-01-02 15:04")
		}
		if c.Questions >= 0 {
			n = strconv.Itoa(c.Questions)
		}
		who := c.AssistantName
		if who == "" && c.GizmoID != "" {
			who = c.GizmoID + " (not imported)"
		}
		if who != "" {
			who = "  [" + who + "]"
		}
		fmt.Fprintf(w, "%s  %s  %-20s %s question(s)  %s%s\n", c.ID, when, c.Model, n, c.Title, who)
	}
	return exitOK
}

func cmdConvShow(env *cliEnv, args []string) int {
	if !slices.ContainsFunc(args, func(a string) bool { return a == "--json" || a == "-json" || a == "--json=true" }) {
		return convExport(env, "show", args)
	}
	fs := env.flags("conversations show", "conversations show ID [--json]")
	asJSON := fs.Bool("json", false, "print the conversation as data: turns, cells, sources, assistant")
	id, code, ok := parseOne(env, fs, args, "conversations show: give one conversation id (see `rehome conversations list`)")
	if !ok {
		return code
	}
	if !*asJSON {
		return convExport(env, "show", args)
	}
	svc, code := convService(env)
	if svc == nil {
		return code
	}
	v, err := svc.View(id)
	if err != nil {
		return env.fail(err)
	}
	return env.json(v)
}

func cmdConvExport(env *cliEnv, args []string) int { return convExport(env, "export", args) }

// convExport is export, or show given a --format, as command name.
func convExport(env *cliEnv, name string, args []string) int {
	fs := env.flags("conversations "+name, "conversations "+name+" ID [--format md|ipynb] [--out FILE]")
	format := fs.String("format", "md", "md (Markdown) or ipynb (Jupyter notebook)")
	out := fs.String("out", "", "write to this `file` instead of stdout")
	id, svc, code := oneConversation(env, fs, args, fmt.Sprintf("conversations %s: give one conversation id (see `rehome conversations list`)", name))
	if svc == nil {
		return code
	}
	data, _, err := svc.Export(id, *format)
	if err != nil {
		return env.fail(err)
	}
	*out = env.path(*out)
	if *out == "" {
		safeWriter(env.stdout).Write(data) // the model's words, shown on a terminal, never obeyed
		return exitOK
	}
	if err := atomicfile.WriteFile(*out, data, 0o644); err != nil {
		return env.fail(err)
	}
	fmt.Fprintf(env.stderr, "rehome: wrote %s\n", *out)
	return exitOK
}

func cmdConvRename(env *cliEnv, args []string) int {
	fs := env.flags("conversations rename", "conversations rename ID TITLE…")
	if code, ok := env.parse(fs, args); !ok {
		return code
	}
	if fs.NArg() < 1 {
		return env.usage("conversations rename: give the conversation id, then its new title (none: its first question)")
	}
	svc, code := convService(env)
	if svc == nil {
		return code
	}
	c, err := svc.Rename(fs.Arg(0), strings.Join(fs.Args()[1:], " "))
	if err != nil {
		return env.fail(err)
	}
	fmt.Fprintf(safeWriter(env.stdout), "%s  %s\n", c.ID, c.Title)
	return exitOK
}

func cmdConvRm(env *cliEnv, args []string) int {
	fs := env.flags("conversations rm", "conversations rm ID")
	id, svc, code := oneConversation(env, fs, args, "conversations rm: give one conversation id (see `rehome conversations list`)")
	if svc == nil {
		return code
	}
	if err := svc.Delete(id); err != nil {
		return env.fail(err)
	}
	return exitOK
}
