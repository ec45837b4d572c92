package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"rehome/backend/core"
	"rehome/backend/memory"
)

func memoryService(env *cliEnv) (*core.Memory, int) { return service(env, (*core.Core).Memory) }

func cmdMemoryList(env *cliEnv, args []string) int {
	fs := env.flags("memory list", "memory list [--search WORDS] [--assistant ID|NAME|shared] [--json]")
	asJSON := fs.Bool("json", false, "print as JSON")
	search := fs.String("search", "", "only the memories holding every one of these `words`")
	scope := fs.String("assistant", "", "only this assistant's own memories (`id or name`), or shared for the ones every chat shares")
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	m, code := memoryService(env)
	if m == nil {
		return code
	}
	sc, err := m.Scope(*scope)
	if err != nil {
		return env.fail(err)
	}
	list, err := m.List(memory.Filter{Query: *search, Scope: sc})
	if code, stop := env.result(list, err, *asJSON); stop {
		return code
	}
	if len(list) == 0 {
		fmt.Fprintln(env.stderr, "rehome: no memories (a model saves one when asked to remember; or `rehome memory add TEXT`)")
	}
	w := safeWriter(env.stdout) // a model wrote many of them
	for _, x := range list {
		owner := "shared"
		if x.Assistant != "" {
			owner = "assistant " + x.Assistant
		}
		fmt.Fprintf(w, "%s  %s  %-6s %-8s %s\n", x.ID, x.Created.Local().Format("2006-01-02"), x.Source, owner, x.Text)
	}
	return exitOK
}

func cmdMemoryAdd(env *cliEnv, args []string) int {
	fs := env.flags("memory add", "memory add [--assistant ID|NAME] TEXT")
	owner := fs.String("assistant", "", "the assistant (`id or name`) whose own memory it is (default: shared by every chat)")
	words, m, code := parseAtLeast(env, fs, args, 1, "memory add takes the text to remember", memoryService)
	if m == nil {
		return code
	}
	x, added, err := m.Add(strings.Join(words, " "), *owner)
	if err != nil {
		return env.fail(err)
	}
	if !added {
		fmt.Fprintf(env.stderr, "rehome: already remembered as %s\n", x.ID)
	}
	fmt.Fprintln(env.stdout, x.ID)
	return exitOK
}

func cmdMemoryEdit(env *cliEnv, args []string) int {
	fs := env.flags("memory edit", "memory edit ID TEXT")
	words, m, code := parseAtLeast(env, fs, args, 2, "memory edit takes a memory's id and its new text", memoryService)
	if m == nil {
		return code
	}
	if _, err := m.Edit(words[0], strings.Join(words[1:], " ")); err != nil {
		return env.fail(err)
	}
	return exitOK
}

func cmdMemoryRm(env *cliEnv, args []string) int {
	fs := env.flags("memory rm", "memory rm ID...")
	if code, ok := env.parse(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return env.usage("memory rm takes the ids of the memories to delete (see `rehome memory list`)")
	}
	m, code := memoryService(env)
	if m == nil {
		return code
	}
	for _, id := range fs.Args() {
		if err := m.Delete(id); err != nil {
			return env.fail(err)
		}
	}
	return exitOK
}

func cmdMemoryImport(env *cliEnv, args []string) int {
	fs := env.flags("memory import", "memory import [--assistant ID|NAME] [--json] FILE|-")
	owner := fs.String("assistant", "", "import them as this assistant's own (`id or name`; default: shared by every chat)")
	asJSON := fs.Bool("json", false, "print what was imported as JSON")
	words, code, ok := interspersedN(env, fs, args, 1, "memory import takes one file (or - for stdin): the memories ChatGPT lists, one a line")
	if !ok {
		return code
	}
	var r io.Reader = env.stdin
	if words[0] != "-" {
		f, err := os.Open(env.path(words[0]))
		if err != nil {
			return env.fail(err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, memory.MaxImportBytes+1))
	if err != nil {
		return env.fail(err)
	}
	m, code := memoryService(env)
	if m == nil {
		return code
	}
	res, err := m.Import(string(data), *owner)
	if *asJSON && err == nil {
		return env.json(res)
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(env.stderr, "rehome: left out %s\n", s)
	}
	if err != nil {
		return env.fail(err)
	}
	fmt.Fprintf(env.stderr, "rehome: %d memories imported, %d kept already\n", res.Added, res.Already)
	return exitOK
}

func cmdMemorySettings(env *cliEnv, args []string) int {
	fs := env.flags("memory settings", "memory settings [--json] [off|on] [--assistant ID|NAME --mode on|off|own]")
	asJSON := fs.Bool("json", false, "print as JSON")
	owner := fs.String("assistant", "", "the assistant (`id or name`) whose choice --mode sets")
	mode := fs.String("mode", "", "the assistant's memory: on (the shared memories), off, or own (its own; the default)")
	words, m, code := parseAtLeast(env, fs, args, 0, "", memoryService)
	if m == nil {
		return code
	}
	var err error
	switch {
	case len(words) > 1 || (len(words) == 1 && words[0] != "on" && words[0] != "off"):
		return env.usage("memory settings takes off or on")
	case len(words) == 1:
		_, err = m.SetOff(words[0] == "off")
	}
	if err == nil && (*mode != "" || *owner != "") {
		if *mode == "" || *owner == "" {
			return env.usage("--mode and --assistant go together")
		}
		_, err = m.SetMode(*owner, *mode)
	}
	if err != nil {
		return env.fail(err)
	}
	set, err := m.Settings()
	if code, stop := env.result(set, err, *asJSON); stop {
		return code
	}
	state := "on"
	if set.Off {
		state = "off (nothing read or saved)"
	}
	fmt.Fprintf(env.stdout, "memory: %s\n", state)
	for id, md := range set.Assistants {
		fmt.Fprintf(env.stdout, "assistant %s: %s\n", id, md)
	}
	return exitOK
}

// memoryLines says on stderr what the memory tool changed in t, with how
// to take it back.
func memoryLines(env *cliEnv, sh *shower, t *core.Transcript) {
	for _, tu := range t.Turns {
		for _, u := range tu.Tools {
			if u.Name != core.MemoryToolName || u.Ref == "" {
				continue
			}
			fmt.Fprintf(env.stderr, "rehome: %s (undo: rehome memory undo %s)\n", sh.safe(u.Fed), sh.safe(u.Ref))
		}
	}
}

func cmdMemoryUndo(env *cliEnv, args []string) int {
	fs := env.flags("memory undo", "memory undo REF")
	if code, ok := env.parseArg(fs, args, "memory undo takes the REF `rehome ask` printed (remember:ID or forget:ID)"); !ok {
		return code
	}
	m, code := memoryService(env)
	if m == nil {
		return code
	}
	if err := m.Undo(fs.Arg(0)); err != nil {
		return env.fail(err)
	}
	return exitOK
}
