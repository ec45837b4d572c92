package cli

import (
	"fmt"
	"strconv"
	"strings"

	"rehome/backend/atomicfile"
	"rehome/backend/llm"
	"rehome/backend/store"
)

// cmdConversations is `rehome conversations`: the kept conversations.
func cmdConversations(env *cliEnv, args []string) int {
	return dispatch(env, []command{
		{"list", "the kept conversations, newest first", cmdConvList},
		{"show", "a conversation as Markdown", func(env *cliEnv, args []string) int { return cmdConvExport(env, "show", args) }},
		{"export", "a conversation as Markdown or a Jupyter notebook", func(env *cliEnv, args []string) int { return cmdConvExport(env, "export", args) }},
		{"rm", "delete a conversation", cmdConvRm},
	}, "rehome conversations", args)
}

func cmdConvList(env *cliEnv, args []string) int {
	fs := env.flags("conversations list", "conversations list [--json]")
	asJSON := fs.Bool("json", false, "print as JSON")
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	st, err := env.openStore()
	if err != nil {
		return env.fail(err)
	}
	cs, err := llm.ListConversations(st, 0)
	if err != nil {
		return env.fail(err)
	}
	if *asJSON {
		return env.json(cs)
	}
	if len(cs) == 0 {
		fmt.Fprintln(env.stderr, "rehome: no conversations yet (ask one with `rehome ask --file data.csv \"a question\"`)")
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
		fmt.Fprintf(w, "%s  %s  %-20s %s question(s)  %s\n", c.ID, when, c.Model, n, c.Title)
	}
	return exitOK
}

func cmdConvExport(env *cliEnv, name string, args []string) int {
	fs := env.flags("conversations "+name, "conversations "+name+" ID [--format md|ipynb] [--out FILE]")
	format := fs.String("format", "md", "md (Markdown) or ipynb (Jupyter notebook)")
	out := fs.String("out", "", "write to this `file` instead of stdout")
	id, rest := splitID(args)
	if code, ok := env.parse(fs, rest); !ok {
		return code
	}
	if id == "" || fs.NArg() > 0 {
		return env.usage("conversations %s: give one conversation id (see `rehome conversations list`)", name)
	}
	st, err := env.openStore()
	if err != nil {
		return env.fail(err)
	}
	c, err := llm.GetConversation(st, id)
	if err != nil {
		return env.fail(fmt.Errorf("%w (see `rehome conversations list`)", err))
	}
	var data []byte
	switch strings.ToLower(*format) {
	case "md", "markdown":
		data = []byte(c.Markdown())
	case "ipynb", "notebook":
		if data, err = c.Notebook(); err != nil {
			return env.fail(err)
		}
	default:
		return env.usage("--format is md or ipynb")
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

func cmdConvRm(env *cliEnv, args []string) int {
	fs := env.flags("conversations rm", "conversations rm ID")
	id, rest := splitID(args)
	if code, ok := env.parse(fs, rest); !ok {
		return code
	}
	if id == "" || fs.NArg() > 0 {
		return env.usage("conversations rm: give one conversation id (see `rehome conversations list`)")
	}
	st, err := env.openStore()
	if err != nil {
		return env.fail(err)
	}
	if err := st.Delete(store.Conversations, id); err != nil {
		return env.fail(err)
	}
	return exitOK
}
