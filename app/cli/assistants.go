package cli

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"rehome/backend/assistant"
	"rehome/backend/bytesize"
	"rehome/backend/core"
)

// assistantFlags are the fields add and edit accept.
type assistantFlags struct {
	name, description, instructions, instructionsFile, notes string
	welcome, model, picture                                  string
	starters, capabilities                                   stringList
	json                                                     bool
}

func (f *assistantFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.name, "name", "", "the assistant's name")
	fs.StringVar(&f.description, "description", "", "a one-line description")
	fs.StringVar(&f.instructions, "instructions", "", "the instructions (system prompt)")
	fs.StringVar(&f.instructionsFile, "instructions-file", "", "read the instructions from this file")
	fs.StringVar(&f.notes, "notes", "", "your notes")
	fs.StringVar(&f.welcome, "welcome", "", "the welcome message a new chat opens with")
	fs.StringVar(&f.model, "model", "", "the default model, as its server names it (\"\" lets rehome choose)")
	fs.StringVar(&f.picture, "picture", "", "a PNG, JPEG or WebP picture file (\"\" removes it)")
	fs.Var(&f.starters, "starter", "a conversation starter (repeat for more)")
	fs.Var(&f.capabilities, "capability", "a capability: "+capList()+" (repeat for more)")
	fs.BoolVar(&f.json, "json", false, "print JSON")
}

// apply copies the flags that were given onto a.
func (f *assistantFlags) apply(env *cliEnv, fs *flag.FlagSet, a *assistant.Assistant) int {
	// The fields a flag's text is copied to as given.
	text := map[string]*string{"name": &a.Name, "description": &a.Description, "instructions": &a.Instructions,
		"notes": &a.Notes, "welcome": &a.WelcomeMessage, "model": &a.Model}
	var code int
	fs.Visit(func(fl *flag.Flag) {
		if field, ok := text[fl.Name]; ok {
			*field = fl.Value.String()
			return
		}
		switch fl.Name {
		case "instructions-file":
			b, err := readFileAtMost(env.path(f.instructionsFile), assistant.MaxInstructions, "an assistant's instructions file")
			if err != nil {
				code = env.usage("--instructions-file: %v", err)
				return
			}
			a.Instructions = string(b)
		case "picture":
			if code = f.applyPicture(env, a); code != exitOK {
				return
			}
		case "starter":
			a.Starters = f.starters
		case "capability":
			a.Capabilities = nil
			for _, c := range f.capabilities {
				for _, one := range strings.Split(c, ",") {
					a.Capabilities = append(a.Capabilities, assistant.Capability(one))
				}
			}
		}
	})
	if code == exitOK && f.instructions != "" && f.instructionsFile != "" {
		code = env.usage("give --instructions or --instructions-file, not both")
	}
	return code
}

// applyPicture readies --picture's file (bounded, scaled, stripped) as
// the assistant's picture, or removes it for "".
func (f *assistantFlags) applyPicture(env *cliEnv, a *assistant.Assistant) int {
	if f.picture == "" {
		a.Picture = ""
		return exitOK
	}
	b, err := readFileAtMost(env.path(f.picture), core.MaxPictureFile, "a picture")
	if err == nil {
		a.Picture, err = core.Picture(filepath.Base(f.picture), b)
	}
	if err != nil {
		return env.usage("--picture: %v", err)
	}
	return exitOK
}

func capList() string {
	s := make([]string, len(assistant.Capabilities))
	for i, c := range assistant.Capabilities {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

func cmdAssistantsAdd(env *cliEnv, args []string) int {
	fs := env.flags("assistants add", "assistants add --name NAME [--description D] [--instructions TEXT] [--starter S]... [--capability C]... [--welcome TEXT] [--model M] [--picture FILE] [--json]")
	var f assistantFlags
	f.register(fs)
	if code, ok := env.parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return env.usage("assistants add: unexpected argument %q (quote values with spaces)", fs.Arg(0))
	}
	var a assistant.Assistant
	if code := f.apply(env, fs, &a); code != exitOK {
		return code
	}
	if a.Name == "" {
		return env.usage("assistants add: --name is required")
	}
	svc, code := assistantService(env)
	if svc == nil {
		return code
	}
	a, err := svc.Create(a)
	if err != nil {
		return env.fail(err)
	}
	return printAssistant(env, a, f.json)
}

func cmdAssistantsEdit(env *cliEnv, args []string) int {
	fs := env.flags("assistants edit", "assistants edit ID [--name NAME] [--description D] [--instructions TEXT] [--starter S]... [--capability C]... [--welcome TEXT] [--model M] [--picture FILE] [--json]")
	var f assistantFlags
	f.register(fs)
	id, code, ok := parseID(env, fs, args, ", then the flags to change")
	if !ok {
		return code
	}
	if fs.NFlag() == 0 || (fs.NFlag() == 1 && f.json) {
		return env.usage("assistants edit: nothing to change: give at least one field flag (see --help)")
	}
	svc, code := assistantService(env)
	if svc == nil {
		return code
	}
	// The flags change the stored record in the same transaction that
	// reads it, so an edit made meanwhile (the window) is not undone.
	errUsage := errors.New("usage")
	a, err := svc.Edit(id, func(a *assistant.Assistant) error {
		if code = f.apply(env, fs, a); code != exitOK {
			return errUsage
		}
		return nil
	})
	switch {
	case errors.Is(err, errUsage):
		return code
	case errors.Is(err, core.ErrNotFound):
		return env.fail(fmt.Errorf("%w (see `rehome assistants list`)", err))
	case err != nil:
		return env.fail(err)
	}
	return printAssistant(env, a, f.json)
}

func cmdAssistantsList(env *cliEnv, args []string) int {
	fs := env.flags("assistants list", "assistants list [--json]")
	return listOf(env, fs, args, assistantService, (*core.Assistants).List, "No assistants yet. Add one with `rehome assistants add --name NAME`.",
		table[assistant.Assistant]{header: "ID\tNAME\tCAPABILITIES\tUPDATED", row: func(a assistant.Assistant) string {
			return fmt.Sprintf("%s\t%s\t%s\t%s", a.ID, oneLine(a.Name), capsText(a.Capabilities), a.Updated.Local().Format("2006-01-02 15:04"))
		}})
}

func cmdAssistantsShow(env *cliEnv, args []string) int {
	svc, id, asJSON, code := assistantByID(env, "show", args)
	if svc == nil {
		return code
	}
	a, err := svc.Get(id)
	if err != nil {
		return env.fail(fmt.Errorf("%w (see `rehome assistants list`)", err))
	}
	return printAssistant(env, a, asJSON)
}

func cmdAssistantsRm(env *cliEnv, args []string) int {
	svc, id, asJSON, code := assistantByID(env, "rm", args)
	if svc == nil {
		return code
	}
	if err := svc.Delete(id); err != nil {
		return env.fail(fmt.Errorf("%w (see `rehome assistants list`)", err))
	}
	if err := env.c.Knowledge().Forget(id); err != nil {
		fmt.Fprintf(env.stderr, "rehome: the assistant is deleted but its knowledge files are not: %v\n", err)
	}
	if asJSON {
		return env.json(map[string]string{"deleted": id})
	}
	fmt.Fprintf(env.stdout, "Deleted assistant %s.\n", id)
	return exitOK
}

// parseID parses the arguments of a command on one assistant: its id,
// before or after the flags, and the flags. A missing or extra id is a usage
// error; hint follows "give exactly one assistant id".
func parseID(env *cliEnv, fs *flag.FlagSet, args []string, hint string) (id string, code int, ok bool) {
	return parseOne(env, fs, args, fmt.Sprintf("%s: give exactly one assistant id%s", fs.Name(), hint))
}

// parseOne parses the arguments of a command on one thing (an assistant,
// a conversation, a file): its word, before or after the flags (splitID),
// and the flags. A missing or extra word is the usage error need.
func parseOne(env *cliEnv, fs *flag.FlagSet, args []string, need string) (word string, code int, ok bool) {
	word, rest := splitID(args)
	if code, ok := env.parse(fs, rest); !ok {
		return "", code, false
	}
	if word == "" || fs.NArg() > 0 {
		return "", env.usage("%s", need), false
	}
	return word, exitOK, true
}

// splitID takes a leading positional id off args so flags may follow it.
func splitID(args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	// The id may also come after the flags.
	for i := len(args) - 1; i >= 0; i-- {
		if !strings.HasPrefix(args[i], "-") && (i == 0 || !needsValue(args[i-1])) {
			return args[i], append(append([]string{}, args[:i]...), args[i+1:]...)
		}
	}
	return "", args
}

func needsValue(flagArg string) bool {
	if strings.Contains(flagArg, "=") {
		return false
	}
	switch strings.TrimLeft(flagArg, "-") {
	case "json", "h", "help":
		return false
	}
	return true
}

// assistantByID parses `assistants VERB ID [--json]` and opens the
// assistants; svc is nil where it failed, with the code to exit with.
func assistantByID(env *cliEnv, verb string, args []string) (svc *core.Assistants, id string, asJSON bool, code int) {
	fs := env.flags("assistants "+verb, "assistants "+verb+" ID [--json]")
	jsonFlag := fs.Bool("json", false, "print JSON")
	id, code, ok := parseID(env, fs, args, "")
	if !ok {
		return nil, "", false, code
	}
	svc, code = assistantService(env)
	return svc, id, *jsonFlag, code
}

func assistantService(env *cliEnv) (*core.Assistants, int) {
	return service(env, (*core.Core).Assistants)
}

func printAssistant(env *cliEnv, a assistant.Assistant, asJSON bool) int {
	if asJSON {
		return env.json(a)
	}
	w := env.stdout
	fmt.Fprintf(w, "ID:            %s\n", a.ID)
	fmt.Fprintf(w, "Name:          %s\n", a.Name)
	if a.Description != "" {
		fmt.Fprintf(w, "Description:   %s\n", a.Description)
	}
	fmt.Fprintf(w, "Capabilities:  %s\n", capsText(a.Capabilities))
	if a.Model != "" {
		fmt.Fprintf(w, "Model:         %s\n", a.Model)
	}
	if a.Picture != "" {
		kind, _, _ := strings.Cut(strings.TrimPrefix(a.Picture, "data:image/"), ";")
		fmt.Fprintf(w, "Picture:       %s, %s\n", strings.ToUpper(kind), bytesize.Format(int64(len(a.Picture))))
	}
	if a.WelcomeMessage != "" {
		fmt.Fprintf(w, "Welcome:       %s\n", oneLine(a.WelcomeMessage))
	}
	for _, s := range a.Starters {
		fmt.Fprintf(w, "Starter:       %s\n", oneLine(s))
	}
	for _, k := range a.Knowledge {
		fmt.Fprintf(w, "Knowledge:     %s (%d bytes, sha256 %s)\n", k.Name, k.Size, k.SHA256)
	}
	if len(a.Actions) > 0 {
		fmt.Fprintf(w, "Actions:       %d\n", len(a.Actions))
	}
	fmt.Fprintf(w, "Created:       %s\n", a.Created.Local().Format("2006-01-02 15:04:05"))
	fmt.Fprintf(w, "Updated:       %s\n", a.Updated.Local().Format("2006-01-02 15:04:05"))
	if a.Instructions != "" {
		fmt.Fprintf(w, "Instructions:\n%s\n", a.Instructions)
	}
	if a.Notes != "" {
		fmt.Fprintf(w, "Notes:\n%s\n", a.Notes)
	}
	return exitOK
}

func capsText(cs []assistant.Capability) string {
	if len(cs) == 0 {
		return "-"
	}
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}
