package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"rehome/backend/atomicfile"
	"rehome/backend/llm"
	"rehome/backend/models"
	"rehome/backend/store"
)

// cmdLLM is `rehome llm`: the local model servers.
func cmdLLM(env *cliEnv, args []string) int {
	return dispatch(env, []command{
		{"status", "the model servers on this machine, their models, and which call tools", cmdLLMStatus},
	}, "rehome llm", args)
}

func cmdLLMStatus(env *cliEnv, args []string) int {
	fs := env.flags("llm status", "llm status [--server URL] [--json]")
	server := fs.String("server", "", "ask only this server (`URL` as an OpenAI client takes it); default: the default ports on this machine")
	asJSON := fs.Bool("json", false, "print the servers as JSON")
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(env.context(), 15*time.Second)
	defer cancel()
	servers, err := llm.Discover(ctx, llm.DiscoverOptions{URL: *server, ToolsHint: llm.CatalogToolsHint})
	if err != nil {
		return env.fail(err)
	}
	if servers == nil {
		servers = []llm.Server{}
	}
	if rep, err := env.sandboxCore().Hardware().Report(ctx); err == nil {
		llm.AddFit(servers, models.MachineFrom(rep))
	}
	if *asJSON {
		env.json(servers)
	} else {
		printServers(env, servers)
	}
	if len(servers) == 0 {
		if !*asJSON {
			st, _ := env.openStore()
			fmt.Fprintf(env.stderr, "rehome: %s\n", llm.NoServerHint(suggestedModel(st)))
		}
		return exitFail
	}
	return exitOK
}

func printServers(env *cliEnv, servers []llm.Server) {
	w := safeWriter(env.stdout) // names, models and errors are the servers' words
	for i, s := range servers {
		if i > 0 {
			fmt.Fprintln(w)
		}
		where := "this machine"
		if !s.Loopback {
			where = "ANOTHER MACHINE: questions leave this one"
		}
		fmt.Fprintf(w, "%s at %s (%s)\n", s.Name, s.BaseURL, where)
		if s.Error != "" {
			fmt.Fprintf(w, "  %s\n", s.Error)
		}
		if len(s.Models) == 0 {
			fmt.Fprintln(w, "  no models")
		}
		for _, m := range s.Models {
			tools := map[llm.Tools]string{llm.ToolsYes: "calls tools", llm.ToolsNo: "no tool calling: code in ```python blocks", llm.ToolsUnknown: "tool calling unknown"}[m.Tools]
			if m.ToolsSource != "" {
				tools += " (" + m.ToolsSource + ")"
			}
			extra := ""
			if m.Vision {
				extra = ", reads images"
			}
			if m.Fit != "" {
				extra += "; " + m.Fit
			}
			fmt.Fprintf(w, "  %-40s %s%s\n", m.ID, tools, extra)
		}
	}
}

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
