package cli

import (
	"fmt"
	"io"
	"strconv"

	"rehome/backend/core"
)

func canvasService(env *cliEnv) (*core.Canvas, int) { return service(env, (*core.Core).Canvas) }

func cmdCanvasShow(env *cliEnv, args []string) int {
	fs := env.flags("canvas show", "canvas show CONVERSATION [--json]")
	asJSON := fs.Bool("json", false, "print the textdocs, their versions and comments as JSON")
	pos, cv, code := parseFor(env, fs, args, 1, "canvas show takes a conversation id (see `rehome conversations list`)", canvasService)
	if cv == nil {
		return code
	}
	docs, err := cv.Docs(pos[0])
	if code, stop := env.result(docs, err, *asJSON); stop {
		return code
	}
	if len(docs) == 0 {
		fmt.Fprintln(env.stderr, "rehome: this conversation has no canvas")
	}
	w := safeWriter(env.stdout) // the model wrote it
	for _, d := range docs {
		last := d.Versions[len(d.Versions)-1]
		fmt.Fprintf(w, "── %s (%s) · %s · version %d by %s ──\n%s\n", d.Name, d.Type, d.ID, last.N, last.By, d.Content)
	}
	return exitOK
}

func canvasDoc(fs interface {
	String(string, string, string) *string
}) *string {
	return fs.String("doc", "", "the textdoc's `id` (default: the conversation's current one)")
}

func cmdCanvasDiff(env *cliEnv, args []string) int {
	fs := env.flags("canvas diff", "canvas diff CONVERSATION FROM TO [--doc ID]")
	doc := canvasDoc(fs)
	pos, code, ok := parseInterspersed(env, fs, args)
	if !ok {
		return code
	}
	a, errA := strconv.Atoi(at(pos, 1))
	b, errB := strconv.Atoi(at(pos, 2))
	if len(pos) != 3 || errA != nil || errB != nil {
		return env.usage("canvas diff takes a conversation id and two version numbers")
	}
	cv, code := canvasService(env)
	if cv == nil {
		return code
	}
	out, err := cv.Diff(pos[0], *doc, a, b)
	if err != nil {
		return env.fail(err)
	}
	fmt.Fprint(safeWriter(env.stdout), out)
	return exitOK
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

func cmdCanvasEdit(env *cliEnv, args []string) int {
	fs := env.flags("canvas edit", "canvas edit CONVERSATION [--doc ID] < NEW-TEXT")
	doc := canvasDoc(fs)
	pos, code, ok := interspersedN(env, fs, args, 1, "canvas edit takes a conversation id; the new text comes on stdin")
	if !ok {
		return code
	}
	data, err := io.ReadAll(io.LimitReader(env.stdin, 1<<20))
	if err != nil {
		return env.fail(err)
	}
	cv, code := canvasService(env)
	if cv == nil {
		return code
	}
	d, err := cv.Edit(pos[0], *doc, string(data))
	if err != nil {
		return env.fail(err)
	}
	fmt.Fprintf(env.stderr, "rehome: %s is at version %d\n", d.Name, d.Versions[len(d.Versions)-1].N)
	return exitOK
}

func cmdCanvasRestore(env *cliEnv, args []string) int {
	fs := env.flags("canvas restore", "canvas restore CONVERSATION VERSION [--doc ID]")
	doc := canvasDoc(fs)
	pos, code, ok := parseInterspersed(env, fs, args)
	if !ok {
		return code
	}
	n, err := strconv.Atoi(at(pos, 1))
	if len(pos) != 2 || err != nil {
		return env.usage("canvas restore takes a conversation id and a version number")
	}
	cv, code := canvasService(env)
	if cv == nil {
		return code
	}
	d, err := cv.Restore(pos[0], *doc, n)
	if err != nil {
		return env.fail(err)
	}
	fmt.Fprintf(env.stderr, "rehome: version %d of %s restored as version %d\n", n, d.Name, d.Versions[len(d.Versions)-1].N)
	return exitOK
}

func cmdCanvasExport(env *cliEnv, args []string) int {
	fs := env.flags("canvas export", "canvas export CONVERSATION --out DIR [--format ipynb]")
	out := fs.String("out", "", "the `folder` to write the textdocs into")
	format := fs.String("format", "", "ipynb writes each as a Jupyter notebook (default: .md for documents, .py for Python …)")
	pos, code, ok := parseInterspersed(env, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 || *out == "" {
		return env.usage("canvas export takes a conversation id and --out DIR")
	}
	cv, code := canvasService(env)
	if cv == nil {
		return code
	}
	files, err := cv.Export(pos[0], env.path(*out), *format)
	for _, f := range files {
		fmt.Fprintln(env.stdout, f)
	}
	if err != nil {
		return env.fail(err)
	}
	return exitOK
}
