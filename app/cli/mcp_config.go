package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"rehome/backend/atomicfile"
	"rehome/backend/mcphost"
)

func cmdMCPConfig(env *cliEnv, args []string) int {
	fs := env.flags("mcp config", "mcp config --client lmstudio|jan|claude|vscode --assistant ASSISTANT [--write] [--file PATH]")
	client := fs.String("client", "", "the MCP client: lmstudio, jan, claude or vscode")
	var refs stringList
	fs.Var(&refs, "assistant", "an assistant to serve (repeat for several)")
	write := fs.Bool("write", false, "add the entry to the client's file, keeping its other entries (a copy of the old file is kept as FILE.bak)")
	file := fs.String("file", "", "the client's configuration `file` (default: where the client keeps it)")
	name := fs.String("name", "rehome", "the entry's `name` in the client")
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	cl, ok := mcphost.HostByID(*client)
	if !ok {
		var known []string
		for _, h := range mcphost.Hosts {
			known = append(known, h.ID)
		}
		sort.Strings(known)
		return env.usage("--client: say which MCP client: %v", known)
	}
	if len(refs) == 0 {
		return env.usage("mcp config needs --assistant (see `rehome assistants list`)")
	}
	self, err := os.Executable()
	if err != nil {
		return env.fail(err)
	}
	cmdArgs := []string{"mcp", "serve"}
	for _, r := range refs {
		cmdArgs = append(cmdArgs, "--assistant", r)
	}
	entry := map[string]any{"command": self, "args": cmdArgs}
	if cl.Typed {
		entry["type"] = "stdio"
	}
	if !*write {
		return env.json(map[string]any{cl.Key: map[string]any{*name: entry}})
	}
	path := env.path(*file)
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return env.fail(err)
		}
		path = cl.File(home)
	}
	return env.done(mergeMCPEntry(path, cl.Key, *name, entry), "added %q to %s; restart the client to see rehome's tools", *name, path)
}

// maxClientConfig is the most bytes of a client's configuration read.
const maxClientConfig = 4 << 20

// mergeMCPEntry sets key.name in the JSON file at path to entry, keeping
// every other entry and field; the old file stays beside it as .bak. A
// file that is not a JSON object is left alone and said so.
func mergeMCPEntry(path, key, name string, entry map[string]any) error {
	doc := map[string]any{}
	old, err := readFileAtMost(path, maxClientConfig, "an MCP configuration")
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("%w; add the entry by hand (`rehome mcp config` prints it)", err)
	case len(old) > 0:
		if err := json.Unmarshal(old, &doc); err != nil {
			return fmt.Errorf("%s is not JSON (%v): fix it or add the entry by hand (`rehome mcp config` prints it); nothing was changed", path, err)
		}
	}
	servers, _ := doc[key].(map[string]any)
	if doc[key] != nil && servers == nil {
		return fmt.Errorf("%s: %q is not an object; nothing was changed", path, key)
	}
	if servers == nil {
		servers = map[string]any{}
	}
	servers[name] = entry
	doc[key] = servers
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if len(old) > 0 {
		if err := atomicfile.WriteFile(path+".bak", old, 0o600); err != nil {
			return err
		}
	}
	return atomicfile.WriteFile(path, append(data, '\n'), 0o600)
}
