package cli

import (
	"context"
	"fmt"
	"strings"

	"rehome/backend/core"
	"rehome/backend/mcphost"
)

func mcpServersService(env *cliEnv) (*core.MCPServers, int) {
	return service(env, (*core.Core).MCPServers)
}

func cmdMCPAdd(env *cliEnv, args []string) int {
	fs := env.flags("mcp add", "mcp add ASSISTANT NAME [--env KEY=VALUE]... -- COMMAND [ARGS...]  |  mcp add ASSISTANT NAME --url URL")
	var envs stringList
	fs.Var(&envs, "env", "a `KEY=VALUE` the server gets (repeat); nothing else of your environment reaches it")
	url := fs.String("url", "", "a Streamable HTTP server's `URL` (instead of a command)")
	var command []string
	for i, a := range args {
		if a == "--" {
			args, command = args[:i], args[i+1:]
			break
		}
	}
	start := takes(2, "mcp add takes an assistant and a name for the server, then -- COMMAND ARGS… or --url URL", mcpServersService)
	return runOn(env, fs, args, start, func(words []string, servers *core.MCPServers) int {
		s := mcphost.Server{Name: words[1], Command: command, URL: *url, Env: envs}
		return env.done(servers.Add(words[0], s), "added the MCP server %s to %s; `rehome mcp test %s %s` lists its tools", s.Name, words[0], words[0], s.Name)
	})
}

func cmdMCPList(env *cliEnv, args []string) int {
	fs := env.flags("mcp list", "mcp list ASSISTANT [--json]")
	asJSON := fs.Bool("json", false, "print the servers as JSON")
	list := func(servers *core.MCPServers, words []string) ([]mcphost.Server, error) {
		list, err := servers.List(words[0])
		if list == nil {
			list = []mcphost.Server{} // none is [] in JSON
		}
		return list, err
	}
	return answer(env, fs, args, takes(1, "mcp list takes an assistant (id or name)", mcpServersService), asJSON, list, func(list []mcphost.Server, words []string) {
		if len(list) == 0 {
			fmt.Fprintf(env.stdout, "%s uses no MCP server (add one: rehome mcp add %s NAME -- COMMAND)\n", words[0], words[0])
			return
		}
		table[mcphost.Server]{header: "NAME\tKIND\tON\tWHAT\tALWAYS ALLOWED", row: func(s mcphost.Server) string {
			what := s.URL
			if what == "" {
				what = strings.Join(s.Command, " ")
			}
			on := map[bool]string{true: "on", false: "off"}[!s.Off]
			return fmt.Sprintf("%s\t%s\t%s\t%s\t%s", s.Name, s.Kind(), on, what, strings.Join(s.AlwaysAllow, ", "))
		}}.print(safeWriter(env.stdout), list)
	})
}

func cmdMCPRm(env *cliEnv, args []string) int {
	fs := env.flags("mcp rm", "mcp rm ASSISTANT SERVER")
	return runOn(env, fs, args, takes(2, "mcp rm takes an assistant and a server's name", mcpServersService), func(words []string, servers *core.MCPServers) int {
		return env.done(servers.Remove(words[0], words[1]), "removed the MCP server %s", words[1])
	})
}

func cmdMCPOn(env *cliEnv, args []string) int  { return mcpOn(env, args, true) }
func cmdMCPOff(env *cliEnv, args []string) int { return mcpOn(env, args, false) }

// mcpOn is mcp on or, with on false, mcp off.
func mcpOn(env *cliEnv, args []string, on bool) int {
	word := map[bool]string{true: "on", false: "off"}[on]
	fs := env.flags("mcp "+word, "mcp "+word+" ASSISTANT SERVER")
	return runOn(env, fs, args, takes(2, "mcp "+word+" takes an assistant and a server's name", mcpServersService), func(words []string, servers *core.MCPServers) int {
		said := fmt.Sprintf("%s is kept, its tools offered no more (`rehome mcp on %s %s` turns it back on)", words[1], words[0], words[1])
		if on {
			said = fmt.Sprintf("%s's tools are offered to %s again", words[1], words[0])
		}
		return env.done(servers.SetOn(words[0], words[1], on), "%s", said)
	})
}

func cmdMCPTest(env *cliEnv, args []string) int {
	fs := env.flags("mcp test", "mcp test ASSISTANT NAME [--json]")
	asJSON := fs.Bool("json", false, "print the tools as JSON")
	start := takes(2, "mcp test takes an assistant and a server's name", mcpServersService)
	return runStoppable(env, fs, args, start, func(ctx context.Context, words []string, servers *core.MCPServers) int {
		tools, notes, err := servers.Test(ctx, words[0], words[1])
		if err != nil {
			return env.fail(err)
		}
		if *asJSON {
			return env.json(map[string]any{"tools": tools, "notes": notes})
		}
		rules := map[string]string{"none": "runs unasked (read-only)", "ask": "asks; Always allow offered", "every": "asks every call (destructive)"}
		table[core.MCPTool]{header: "TOOL\tTHE MODEL CALLS IT\tCONFIRMATION", row: func(t core.MCPTool) string {
			return fmt.Sprintf("%s\t%s\t%s", t.Name, t.LoopName, rules[string(t.Rule)])
		}}.print(safeWriter(env.stdout), tools)
		for _, n := range notes {
			fmt.Fprintf(safeWriter(env.stderr), "rehome: note: %s\n", n)
		}
		return exitOK
	})
}

// cmdMCPImport adds the servers of an MCP host's file (LM Studio's
// mcp.json, Claude Desktop's, Jan's: {"mcpServers": {NAME: {command,
// args, env} or {url}}}, VS Code's "servers") to an assistant.
func cmdMCPImport(env *cliEnv, args []string) int {
	fs := env.flags("mcp import", "mcp import ASSISTANT FILE [--only NAME]...")
	var only stringList
	fs.Var(&only, "only", "import only this server (repeat)")
	words, code, ok := interspersedN(env, fs, args, 2, "mcp import takes an assistant and an MCP host's configuration file (e.g. ~/.lmstudio/mcp.json)")
	if !ok {
		return code
	}
	data, err := readFileAtMost(env.path(words[1]), mcphost.MaxHostConfig, "an MCP configuration")
	if err != nil {
		return env.fail(err)
	}
	servers, code := mcpServersService(env)
	if servers == nil {
		return code
	}
	res, err := servers.Import(words[0], core.MCPSource{Text: string(data)}, only, nil)
	if err != nil {
		return env.fail(fmt.Errorf("%s: %w", words[1], err))
	}
	for _, f := range res.Failed {
		fmt.Fprintf(safeWriter(env.stderr), "rehome: %s: %s\n", f.Name, f.Error)
	}
	for _, a := range res.Added {
		fmt.Fprintf(env.stdout, "added %s (%s)\n", a.Name, a.Kind)
	}
	if len(res.Failed) > 0 {
		return exitFail
	}
	return exitOK
}
