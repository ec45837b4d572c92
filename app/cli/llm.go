package cli

import (
	"context"
	"fmt"
	"time"

	"rehome/backend/core"
)

func cmdLLMStatus(env *cliEnv, args []string) int {
	fs := env.flags("llm status", "llm status [--server URL] [--json]")
	server := fs.String("server", "", "ask only this server (`URL` as an OpenAI client takes it); default: the default ports on this machine")
	asJSON := fs.Bool("json", false, "print the servers as JSON")
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(env.context(), 15*time.Second)
	defer cancel()
	// The carried models too, as the window lists them, when the
	// database opens (it is not needed for the rest).
	c, err := env.core(core.Options{})
	if err != nil {
		c = env.sandboxCore()
	}
	servers, err := c.Servers().Status(ctx, *server)
	if err != nil {
		return env.fail(err)
	}
	if *asJSON {
		env.json(servers)
	} else {
		printServers(env, servers)
	}
	if len(servers) == 0 {
		if !*asJSON {
			fmt.Fprintf(env.stderr, "rehome: %s\n", core.NoServerHint(c.Servers().SuggestedModel("")))
		}
		return exitFail
	}
	return exitOK
}

func printServers(env *cliEnv, servers []core.Server) {
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
			tools := map[core.Tools]string{core.ToolsYes: "calls tools", core.ToolsNo: "no tool calling: code in ```python blocks", core.ToolsUnknown: "tool calling unknown"}[m.Tools]
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
