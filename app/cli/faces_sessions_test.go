package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/app"
)

// A session's use cases, driven from both faces, give the same answer:
// the export (notebook and Python, byte for byte), the cells, and the id
// rule (a path is no id; a well-formed id of no session is named).
func TestSessionsSameFromBothFaces(t *testing.T) {
	needPodman(t)
	home := t.TempDir()
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	csv := filepath.Join(dir, "sales.csv")
	os.WriteFile(csv, []byte("month,revenue\n1,10\n2,14\n"), 0o644)
	r := rehomeCLI(t, home, "session", "start", "--file", csv, "--idle", "5m")
	if r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	id := strings.TrimSpace(r.stdout)
	t.Cleanup(func() { rehomeCLI(t, home, "session", "stop", id) })
	for _, cell := range []string{"x = 1 + 2\nx\n", "print(x * 2)\n"} {
		if r = rehomeCLIIn(t, home, strings.NewReader(cell), "session", "exec", id, "-"); r.code != 0 {
			t.Fatalf("exec: %+v", r)
		}
	}
	if r = rehomeCLI(t, home, "session", "list", "--json"); r.code != 0 || !strings.Contains(r.stdout, id) {
		t.Fatalf("list: %+v", r)
	}
	out := t.TempDir()
	cli := map[string]string{}
	for _, f := range []string{"ipynb", "py"} {
		p := filepath.Join(out, "s."+f)
		if r = rehomeCLI(t, home, "session", "export", id, "-o", p); r.code != 0 || !strings.Contains(r.stderr, "2 cells") {
			t.Fatalf("export %s: %+v", f, r)
		}
		b, _ := os.ReadFile(p)
		cli[f] = string(b)
	}
	badCLI := rehomeCLI(t, home, "session", "export", "../x", "-o", filepath.Join(out, "x.py"))
	missingCLI := rehomeCLI(t, home, "session", "export", "nosuchsession", "-o", filepath.Join(out, "x.py"))

	a := app.New(app.Config{DataDir: home})
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for f, want := range cli {
		got, err := a.ExportSession(id, f)
		if err != nil || got != want || !strings.Contains(got, "x * 2") {
			t.Fatalf("export %s: the window's (%v)\n%s\nthe terminal's\n%s", f, err, got, want)
		}
	}
	if cells, err := a.SessionCells(id); err != nil || len(cells) != 2 {
		t.Fatalf("cells: %d %v", len(cells), err)
	}
	_, badApp := a.ExportSession("../x", "py")
	_, missingApp := a.ExportSession("nosuchsession", "py")
	for _, c := range []struct {
		cli  cliResult
		app  error
		want string
	}{{badCLI, badApp, `"../x" is not a session id`}, {missingCLI, missingApp, "no session nosuchsession"}} {
		if c.cli.code != 1 || !strings.Contains(c.cli.stderr, c.want) || c.app == nil || !strings.Contains(c.app.Error(), c.want) {
			t.Fatalf("want %q from both: the terminal's %+v, the window's %v", c.want, c.cli, c.app)
		}
	}
}

// Interrupt, restart and stop by id are core.Sessions' from both faces: an
// id that is no id, or names no session, gets the same words from the
// terminal's commands and the window's methods (no Podman needed to say so).
func TestSessionControlSameFromBothFaces(t *testing.T) {
	home := t.TempDir()
	a := app.New(app.Config{DataDir: home})
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	window := map[string]func(string) error{"interrupt": a.InterruptSession, "restart": a.RestartSession, "stop": a.StopSession}
	for _, c := range []struct{ id, want string }{{"../x", `"../x" is not a session id`}, {"nosuchsession", "no session nosuchsession"}} {
		for verb, method := range window {
			r := rehomeCLI(t, home, "session", verb, c.id)
			err := method(c.id)
			if r.code != 1 || !strings.Contains(r.stderr, c.want) || err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("session %s %s: want %q from both: the terminal's %+v, the window's %v", verb, c.id, c.want, r, err)
			}
		}
	}
}
