package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"rehome/backend/assistant"
	"rehome/backend/core"
)

// cmdAssistantsImport is `rehome assistants import FILE`: ChatGPT's own GPT
// JSON (one record, the store's or the owner's list, JSON Lines, the
// export snippet's file; see docs/chatgpt-export.md), rehome's record or
// an OpenAI Assistants object ("-" reads stdin), the Assistants API's list
// of them (each imported on its own and reported per assistant), or a
// rehome bundle (.tar.gz or .zip, told apart by content). Every face
// imports JSON through core's ImportJSON.
func cmdAssistantsImport(env *cliEnv, args []string) int {
	fs := env.flags("assistants import", "assistants import FILE|- [--knowledge PATH]... [--json]")
	var knowledge stringList
	fs.Var(&knowledge, "knowledge", "a knowledge file to attach: copied into <data dir>/knowledge, named by its SHA-256 (repeat for more)")
	asJSON := fs.Bool("json", false, "print the stored assistant and the warnings as JSON")
	pos, code, ok := mixedN(env, fs, args, 1, "assistants import: give one file (a GPT's JSON from ChatGPT, rehome's JSON or a rehome bundle), or - for JSON on stdin")
	if !ok {
		return code
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
			data, err = io.ReadAll(io.LimitReader(env.stdin, maxImportJSON))
		} else {
			data, err = readFileAtMost(file, maxImportJSON, "an assistant's JSON (rehome's export, a GPT's record)")
		}
		if err != nil {
			return env.fail(fmt.Errorf("read %s: %w", file, err))
		}
		rep, err := env.c.ImportJSON(data, knowledge)
		if err != nil {
			return env.fail(err)
		}
		if rep.List {
			return printImportReport(env, file, rep, *asJSON)
		}
		it := rep.Items[0]
		imp = assistant.Imported{Assistant: *it.Assistant, Warnings: it.Warnings, Updated: it.Updated}
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
	verb := "imported"
	if imp.Updated {
		verb = "updated"
	}
	fmt.Fprintf(env.stdout, "%s %s %q%s\n", verb, a.ID, a.Name, summary(a))
	return exitOK
}

// summary says what an imported assistant holds, in one parenthesis.
func summary(a assistant.Assistant) string {
	parts := []string{counted(len(a.Knowledge), "knowledge file", "knowledge files"), counted(len(a.Actions), "action", "actions")}
	if a.GizmoID != "" {
		parts = append([]string{"GPT " + a.GizmoID}, parts...)
	}
	if len(a.Capabilities) > 0 {
		caps := make([]string, len(a.Capabilities))
		for i, c := range a.Capabilities {
			caps[i] = string(c)
		}
		parts = append(parts, strings.Join(caps, ", "))
	}
	if n := len(assistant.FilesToBring(a)); n > 0 {
		parts = append(parts, counted(n, "file", "files")+" to bring")
	}
	other := 0
	for _, rf := range a.RemoteFiles {
		if rf.Kind != assistant.GPTFile {
			other++
		}
	}
	if other > 0 {
		parts = append(parts, counted(other, "file", "files")+" still on OpenAI")
	}
	return " (" + strings.Join(parts, "; ") + ")"
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
	updated := 0
	for _, it := range rep.Items {
		if it.Updated {
			updated++
		}
	}
	upd := ""
	if updated > 0 {
		upd = fmt.Sprintf(" (%d updated: imported before from the same GPT)", updated)
	}
	fmt.Fprintf(env.stdout, "%s: a list of %d assistant(s): %d imported, %d not imported%s\n", file, len(rep.Items), rep.Imported, rep.Failed, upd)
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
		verb := "imported"
		if it.Updated {
			verb = "updated"
		}
		if a.GizmoID != "" {
			src = "" // summary names the GPT
		}
		fmt.Fprintf(env.stdout, "  %s %s %q%s%s\n", verb, a.ID, a.Name, src, summary(*a))
		for _, w := range it.Warnings {
			fmt.Fprintf(env.stdout, "    note: %s\n", w)
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
	pos, code, ok := mixedN(env, fs, args, 1, "assistants export: give one assistant id (see `rehome assistants list`)")
	if !ok {
		return code
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
		if errors.Is(err, core.ErrNotFound) {
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

// counted says "1 file", "3 files": a count in words, not "file(s)".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
