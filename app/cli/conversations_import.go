package cli

import (
	"fmt"
	"io"
	"sort"
	"time"

	"rehome/backend/bytesize"
	"rehome/backend/core"
)

// cmdConvImport is `rehome conversations import EXPORT`: ChatGPT's data
// export streamed in, a progress line on the terminal, a report at the
// end (--json: the report as data).
func cmdConvImport(env *cliEnv, args []string) int {
	fs := env.flags("conversations import", "conversations import EXPORT.zip|conversations.json [--json]")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	file, svc, code := oneConversation(env, fs, args, "conversations import: give ChatGPT's data export (the .zip from Settings → Data controls → Export, or its conversations.json)")
	if svc == nil {
		return code
	}
	tty := isTerminal(env.stderr)
	var last time.Time
	rep, err := svc.Import(env.context(), env.path(file), func(p core.ImportProgress) {
		if p.Done || (!tty && time.Since(last) < 5*time.Second) {
			return
		}
		last = time.Now()
		line := progressLine(p)
		if tty {
			fmt.Fprintf(env.stderr, "\r\033[K%s", line)
		} else {
			fmt.Fprintln(env.stderr, line)
		}
	})
	if tty {
		fmt.Fprint(env.stderr, "\r\033[K")
	}
	if rep == nil {
		return env.fail(err)
	}
	if *asJSON {
		if code := env.json(rep); err == nil {
			return code
		}
	} else {
		printImport(safeWriter(env.stdout), rep)
	}
	if err != nil {
		return env.failOrStop(err)
	}
	return exitOK
}

func progressLine(p core.ImportProgress) string {
	s := fmt.Sprintf("rehome: importing: %d conversation(s) read, %d imported", p.Seen, p.Imported)
	if p.Size > 0 {
		s += fmt.Sprintf(", %s of %s (%d%%)", bytesize.Format(p.Read), bytesize.Format(p.Size), p.Read*100/max(p.Size, 1))
	}
	return s
}

func printImport(w io.Writer, r *core.ImportReport) {
	fmt.Fprintf(w, "Imported %d conversation(s) from %s (%d new, %d updated); %d unchanged since an earlier import, %d not imported.\n",
		r.Imported, r.File, r.Imported-r.Replaced, r.Replaced, r.Unchanged, r.Skipped)
	sort.Slice(r.Filed, func(i, j int) bool { return r.Filed[i].Conversations > r.Filed[j].Conversations })
	for _, f := range r.Filed {
		if f.AssistantName != "" {
			fmt.Fprintf(w, "  %d with GPT %s, filed under the assistant %q\n", f.Conversations, f.GizmoID, f.AssistantName)
		} else {
			fmt.Fprintf(w, "  %d with GPT %s: they join its assistant once you import it (`rehome assistants import`)\n", f.Conversations, f.GizmoID)
		}
	}
	if r.PlainChats > 0 {
		fmt.Fprintf(w, "  %d plain chat(s), with no GPT\n", r.PlainChats)
	}
	if r.Branches > 0 || r.Dropped > 0 {
		fmt.Fprintf(w, "  %d other branch(es) (edited questions, regenerated answers) kept beside the one you were on; %d more not kept\n", r.Branches, r.Dropped)
	}
	if r.Files > 0 {
		fmt.Fprintf(w, "  %d file(s) from the zip (%s): images and uploads\n", r.Files, bytesize.Format(r.FileBytes))
	}
	if r.Hidden > 0 {
		fmt.Fprintf(w, "  %d hidden message(s) left out as ChatGPT hides them (system prompts, custom instructions, memory)\n", r.Hidden)
	}
	for _, s := range r.Skips {
		fmt.Fprintf(w, "  not imported: %q: %s\n", s.Title, s.Why)
	}
	if r.Skipped > len(r.Skips) {
		fmt.Fprintf(w, "  … and %d more not imported\n", r.Skipped-len(r.Skips))
	}
	if r.Stopped != "" {
		fmt.Fprintf(w, "The import %s.\n", r.Stopped)
	}
}
