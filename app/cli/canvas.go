package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"

	"rehome/backend/canvas"
	"rehome/backend/core"
)

func canvasService(env *cliEnv) (*core.Canvas, int) { return service(env, (*core.Core).Canvas) }

func cmdCanvasShow(env *cliEnv, args []string) int {
	fs := env.flags("canvas show", "canvas show CONVERSATION [--json]")
	asJSON := fs.Bool("json", false, "print the textdocs, their versions and comments as JSON")
	docs := func(cv *core.Canvas, conv []string) ([]*canvas.Doc, error) { return cv.Docs(conv[0]) }
	start := takes(1, "canvas show takes a conversation id (see `rehome conversations list`)", canvasService)
	return answer(env, fs, args, start, asJSON, docs, func(docs []*canvas.Doc, _ []string) {
		if len(docs) == 0 {
			fmt.Fprintln(env.stderr, "rehome: this conversation has no canvas")
		}
		w := safeWriter(env.stdout) // the model wrote it
		for _, d := range docs {
			last := d.Versions[len(d.Versions)-1]
			fmt.Fprintf(w, "── %s (%s) · %s · version %d by %s ──\n%s\n", d.Name, d.Type, d.ID, last.N, last.By, d.Content)
		}
	})
}

func canvasDoc(fs interface {
	String(string, string, string) *string
}) *string {
	return fs.String("doc", "", "the textdoc's `id` (default: the conversation's current one)")
}

func cmdCanvasDiff(env *cliEnv, args []string) int {
	fs := env.flags("canvas diff", "canvas diff CONVERSATION FROM TO [--doc ID]")
	at, cv, code := canvasVersions(env, fs, args, 2, "canvas diff takes a conversation id and two version numbers")
	if cv == nil {
		return code
	}
	out, err := cv.Diff(at.conv, at.doc, at.versions[0], at.versions[1])
	if err != nil {
		return env.fail(err)
	}
	fmt.Fprint(safeWriter(env.stdout), out)
	return exitOK
}

// textdocAt is the versions of a textdoc that canvas diff and restore
// work on: the conversation, the textdoc's id (--doc; "": the current
// one) and the version numbers given.
type textdocAt struct {
	conv, doc string
	versions  []int
}

// canvasVersions is the start of canvas diff and restore: --doc added to
// fs, a conversation id and n version numbers, the flags before, between
// or after them (else the usage error need), then the canvas. cv is nil
// where the command must stop, with code.
func canvasVersions(env *cliEnv, fs *flag.FlagSet, args []string, n int, need string) (at textdocAt, cv *core.Canvas, code int) {
	doc := canvasDoc(fs)
	pos, code, ok := parseInterspersed(env, fs, args)
	if !ok {
		return at, nil, code
	}
	if len(pos) != n+1 {
		return at, nil, env.usage("%s", need)
	}
	for _, w := range pos[1:] {
		v, err := strconv.Atoi(w)
		if err != nil {
			return at, nil, env.usage("%s", need)
		}
		at.versions = append(at.versions, v)
	}
	at.conv, at.doc = pos[0], *doc
	cv, code = canvasService(env)
	return at, cv, code
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
	at, cv, code := canvasVersions(env, fs, args, 1, "canvas restore takes a conversation id and a version number")
	if cv == nil {
		return code
	}
	n := at.versions[0]
	d, err := cv.Restore(at.conv, at.doc, n)
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
