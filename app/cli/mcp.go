package cli

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"rehome/app/mcpserve"
)

func cmdMCPServe(env *cliEnv, args []string) int {
	fs := env.flags("mcp serve", "mcp serve --assistant ASSISTANT [--assistant …] [--http 127.0.0.1:PORT]")
	var refs stringList
	fs.Var(&refs, "assistant", "an assistant to serve (id or name; repeat for several: their tools are then named NAME_tool)")
	addr := fs.String("http", "", "serve Streamable HTTP at `ADDR` on this machine (e.g. 127.0.0.1:8765) instead of stdio; a bearer token is printed once")
	env.addPodmanFlags(fs)
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	c, code := env.readyCore()
	if c == nil {
		return code
	}
	ctx, stop := env.interruptible()
	defer stop()
	opts := mcpserve.Options{MCP: c.MCP(), Assistants: refs, Version: env.version, Log: env.log}
	if *addr != "" {
		opts.Confirm = confirmer(env, false) // stdin is free beside --http: ask there
	}
	srv, err := mcpserve.New(opts)
	if err != nil {
		return env.fail(err)
	}
	for _, n := range srv.Notes {
		fmt.Fprintf(safeWriter(env.stderr), "rehome: note: %s\n", n)
	}
	if *addr == "" {
		// stdout is the protocol's: every word of rehome's goes to stderr.
		if err := srv.Handle(ctx, env.stdin, env.stdout); err != nil {
			return env.fail(err)
		}
		return exitOK
	}
	l, err := mcpserve.Listen(*addr)
	if err != nil {
		return env.usage("--http: %v", err)
	}
	b := make([]byte, 24)
	rand.Read(b)
	token := hex.EncodeToString(b)
	fmt.Fprintf(env.stderr, "rehome: MCP server for %s at http://%s/mcp\nrehome: token (shown once): %s\n", strings.Join(refs, ", "), l.Addr(), token)
	if err := srv.ServeHTTP(ctx, l, token); err != nil {
		return env.fail(err)
	}
	return exitOK
}
