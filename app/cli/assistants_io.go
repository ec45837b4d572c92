package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"rehome/backend/assistant"
	"rehome/backend/core"
	"rehome/backend/store"
)

// cmdAssistantsImport is `rehome assistants import FILE`: a JSON description
// of a GPT (rehome's record or an OpenAI Assistants object; "-" reads
// stdin), the Assistants API's list of them (each imported on its own and
// reported per assistant), or a rehome bundle (.tar.gz or .zip, told apart
// by content).
func cmdAssistantsImport(env *cliEnv, args []string) int {
	fs := env.flags("assistants import", "assistants import FILE|- [--knowledge PATH]... [--json]")
	var knowledge stringList
	fs.Var(&knowledge, "knowledge", "a knowledge file to attach: copied into <data dir>/knowledge, named by its SHA-256 (repeat for more)")
	asJSON := fs.Bool("json", false, "print the stored assistant and the warnings as JSON")
	pos, code, ok := parseMixed(env, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return env.usage("assistants import: give one file (JSON or a rehome bundle), or - for JSON on stdin")
	}
	file := env.path(pos[0])
	knowledge = env.paths(knowledge)
	_, err := env.openStore()
	if err != nil {
		return env.fail(err)
	}
	svc := env.c.Assistants()
	var imp assistant.Imported
	if file != "-" && assistant.IsBundle(file) {
		imp, err = svc.ImportBundleFile(file, knowledge)
		if errors.Is(err, core.ErrBundleKnowledge) {
			return env.usage("assistants import: %v (--knowledge is for JSON imports)", err)
		}
	} else {
		var data []byte
		if file == "-" {
			data, err = io.ReadAll(io.LimitReader(env.stdin, 64<<20))
		} else {
			data, err = os.ReadFile(file)
		}
		if err != nil {
			return env.fail(fmt.Errorf("read %s: %w", file, err))
		}
		rep, err := svc.ImportJSON(data, assistant.ImportOptions{Knowledge: knowledge})
		if err != nil {
			return env.fail(err)
		}
		if rep.List {
			return printImportReport(env, file, rep, *asJSON)
		}
		it := rep.Items[0]
		imp = assistant.Imported{Assistant: *it.Assistant, Warnings: it.Warnings}
	}
	if err != nil {
		return env.fail(err)
	}
	if *asJSON {
		return env.json(imp)
	}
	for _, w := range imp.Warnings {
		fmt.Fprintf(env.stderr, "rehome: note: %s\n", w)
	}
	a := imp.Assistant
	fmt.Fprintf(env.stdout, "imported %s %q (%d knowledge file(s), %d action(s))\n", a.ID, a.Name, len(a.Knowledge), len(a.Actions))
	return exitOK
}

// printImportReport prints what became of each assistant of an imported
// list; the exit status is 1 when any could not be imported.
func printImportReport(env *cliEnv, file string, rep assistant.ImportReport, asJSON bool) int {
	code := exitOK
	if rep.Failed > 0 {
		code = 1
	}
	if asJSON {
		if c := env.json(rep); c != exitOK {
			return c
		}
		return code
	}
	fmt.Fprintf(env.stdout, "%s: a list of %d assistant(s): %d imported, %d not imported\n", file, len(rep.Items), rep.Imported, rep.Failed)
	for _, it := range rep.Items {
		src := ""
		if it.SourceID != "" {
			src = " (" + it.SourceID + ")"
		}
		if !it.Imported {
			name := it.Name
			if name == "" {
				name = fmt.Sprintf("item %d", it.Index+1)
			}
			fmt.Fprintf(env.stdout, "  not imported: %q%s: %s\n", name, src, it.Error)
			continue
		}
		a := it.Assistant
		fmt.Fprintf(env.stdout, "  imported %s %q%s (%d knowledge file(s), %d action(s), %d file(s) still on OpenAI)\n", a.ID, a.Name, src, len(a.Knowledge), len(a.Actions), len(a.RemoteFiles))
		for _, w := range it.Warnings {
			fmt.Fprintf(env.stdout, "    not imported: %s\n", w)
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(env.stdout, "note: %s\n", n)
	}
	return code
}

// paramList is a repeatable --param name=value flag.
type paramList []assistant.Parameter

func (p *paramList) String() string { return fmt.Sprint(*p) }

func (p *paramList) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("%q: write it as name=value, such as temperature=0.2", v)
	}
	*p = append(*p, assistant.Parameter{Name: strings.TrimSpace(name), Value: value})
	return nil
}

// cmdAssistantsExport is `rehome assistants export ID --format F`.
func cmdAssistantsExport(env *cliEnv, args []string) int {
	fs := env.flags("assistants export", "assistants export ID --format modelfile|openwebui|bundle [--model TAG] [--param name=value]... [-o FILE] [--json]")
	format := fs.String("format", "", "modelfile (Ollama), openwebui (Open WebUI model JSON) or bundle (rehome's portable archive)")
	model := fs.String("model", "", "the local model it runs on, such as qwen2.5:7b (default: the model of its latest audit)")
	var params paramList
	fs.Var(&params, "param", "an Ollama PARAMETER, such as temperature=0.2 (repeat for more)")
	noGreeting := fs.Bool("no-greeting", false, "modelfile: write the conversation starters as comments only, not as a greeting MESSAGE")
	allowMissing := fs.Bool("allow-missing", false, "bundle: go on when a knowledge file is not where it was attached (its reference is kept)")
	out := fs.String("o", "", "write to this file (.zip makes a zip bundle); a bundle needs it, the others default to stdout")
	asJSON := fs.Bool("json", false, "print where the export went and its warnings as JSON")
	pos, code, ok := parseMixed(env, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return env.usage("assistants export: give one assistant id (see `rehome assistants list`)")
	}
	id := pos[0]
	switch *format {
	case "modelfile", "openwebui", "bundle":
	case "":
		return env.usage("assistants export: choose --format modelfile, openwebui or bundle")
	default:
		return env.usage("assistants export: unknown --format %q: use modelfile, openwebui or bundle", *format)
	}
	*out = env.path(*out)
	if *format == "bundle" && *out == "" {
		return env.usage("assistants export: a bundle is an archive: give -o FILE.tar.gz (or .zip)")
	}
	if _, err := env.openStore(); err != nil {
		return env.fail(err)
	}
	// The window's export goes through the same core method.
	x, err := env.c.Export(core.ExportRequest{
		ID: id, Format: *format, Path: *out, AllowMissing: *allowMissing,
		Options: assistant.ExportOptions{Model: *model, Parameters: params, NoGreeting: *noGreeting},
	})
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return env.fail(fmt.Errorf("assistant %q not found: see `rehome assistants list` for the ids", id))
		}
		return env.fail(err)
	}
	dest := "stdout"
	if *out != "" {
		dest = *out
	} else if !*asJSON {
		io.WriteString(env.stdout, x.Content)
	}
	if *asJSON {
		res := map[string]any{"format": *format, "file": dest, "bytes": x.Bytes, "warnings": x.Warnings}
		if *out == "" {
			res["content"] = x.Content
		}
		return env.json(res)
	}
	for _, w := range x.Warnings {
		fmt.Fprintf(env.stderr, "rehome: note: %s\n", w)
	}
	if *out != "" {
		fmt.Fprintf(env.stderr, "wrote %s (%d bytes)\n", *out, x.Bytes)
	}
	return exitOK
}
