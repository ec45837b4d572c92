package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/core"
)

type listed struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

func listedRow(l listed) string { return l.Name + "\t" + strings.Repeat("x", l.N) + "\tend" }

// TestPrintList drives the list printer every list command ends with:
// JSON, the empty line, and the aligned table.
func TestPrintList(t *testing.T) {
	run := func(items []listed, asJSON bool) (string, string, int) {
		var out, errOut bytes.Buffer
		env := &cliEnv{stdout: &out, stderr: &errOut}
		code := printList(env, items, nil, asJSON, "nothing here: add one", table[listed]{header: "NAME\tX\tTAIL", row: listedRow})
		return out.String(), errOut.String(), code
	}
	items := []listed{{"a", 1}, {"longer", 0}}

	out, errOut, code := run(items, false)
	want := "NAME    X  TAIL\na       x  end\nlonger     end\n"
	if code != exitOK || out != want || errOut != "" {
		t.Fatalf("table: code %d, stdout %q (want %q), stderr %q", code, out, want, errOut)
	}
	out, _, code = run(nil, false)
	if code != exitOK || out != "nothing here: add one\n" {
		t.Fatalf("empty: code %d, %q", code, out)
	}
	out, _, _ = run(items, true)
	if want := "[\n  {\n    \"name\": \"a\",\n    \"n\": 1\n  },\n  {\n    \"name\": \"longer\",\n    \"n\": 0\n  }\n]\n"; out != want {
		t.Fatalf("JSON: %q, want %q", out, want)
	}
	// JSON wins over the empty words: a script reads null, as before.
	if out, _, _ = run(nil, true); out != "null\n" {
		t.Fatalf("empty JSON: %q", out)
	}
	// The core call's error wins over both: one line, exit 1, no list.
	var out2, err2 bytes.Buffer
	env := &cliEnv{stdout: &out2, stderr: &err2}
	code = printList(env, items, errors.New("the list is gone"), true, "nothing here", table[listed]{header: "NAME", row: listedRow})
	if code != exitFail || out2.Len() != 0 || err2.String() != "rehome: the list is gone\n" {
		t.Fatalf("error: code %d, stdout %q, stderr %q", code, out2.String(), err2.String())
	}
}

// TestService opens one service of a data folder's core, and reports a
// data folder that cannot open on one line with exit 1.
func TestService(t *testing.T) {
	var errOut bytes.Buffer
	env := &cliEnv{stdout: &bytes.Buffer{}, stderr: &errOut, dataDir: t.TempDir()}
	defer env.close()
	m, code := service(env, (*core.Core).Memory)
	if m == nil || code != exitOK {
		t.Fatalf("service: %v, code %d, stderr %q", m, code, errOut.String())
	}
	if _, err := m.Settings(); err != nil {
		t.Fatalf("the service opened is not ready: %v", err)
	}

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	errOut.Reset()
	bad := &cliEnv{stdout: &bytes.Buffer{}, stderr: &errOut, dataDir: file}
	defer bad.close()
	if m, code := service(bad, (*core.Core).Memory); m != nil || code != exitFail {
		t.Fatalf("a file as data folder: %v, code %d", m, code)
	}
	if s := errOut.String(); !strings.HasPrefix(s, "rehome: ") || strings.Count(s, "\n") != 1 {
		t.Fatalf("want one line of error, got %q", s)
	}
}

// TestParseFor checks the start of the area commands: wrong words and
// --help stop before the data folder is opened; right words open it.
func TestParseFor(t *testing.T) {
	start := func(args ...string) (*cliEnv, []string, *core.Memory, int, string, string) {
		var out, errOut bytes.Buffer
		env := &cliEnv{stdout: &out, stderr: &errOut, dataDir: filepath.Join(t.TempDir(), "data")}
		t.Cleanup(env.close)
		fs := env.flags("memory demo", "memory demo ONE TWO [--json]")
		fs.Bool("json", false, "print JSON")
		words, m, code := parseFor(env, fs, args, 2, "memory demo takes two words", memoryService)
		return env, words, m, code, out.String(), errOut.String()
	}
	env, words, m, code, _, errOut := start("one", "--json", "two")
	if m == nil || code != exitOK || strings.Join(words, ",") != "one,two" {
		t.Fatalf("right words: %q, %v, code %d, stderr %q", words, m, code, errOut)
	}
	if env.c == nil {
		t.Fatal("right words did not open the core")
	}
	env, _, m, code, _, errOut = start("one")
	if m != nil || code != exitUsage || errOut != "rehome: memory demo takes two words\n" || env.c != nil {
		t.Fatalf("one word: %v, code %d, stderr %q, core opened %v", m, code, errOut, env.c != nil)
	}
	env, _, m, code, out, _ := start("--help")
	if m != nil || code != exitOK || !strings.HasPrefix(out, "usage: rehome memory demo ONE TWO") || env.c != nil {
		t.Fatalf("--help: %v, code %d, stdout %q, core opened %v", m, code, out, env.c != nil)
	}
	if _, err := os.Stat(env.dataDir); !os.IsNotExist(err) {
		t.Fatalf("--help made the data folder: %v", err)
	}
}

// TestCoreService opens a service without asking the database to be
// ready, and reports a data folder that cannot open with exit 1.
func TestCoreService(t *testing.T) {
	var errOut bytes.Buffer
	env := &cliEnv{stdout: &bytes.Buffer{}, stderr: &errOut, dataDir: t.TempDir()}
	defer env.close()
	lm, code := coreService(env, (*core.Core).LocalModels)
	if lm == nil || code != exitOK {
		t.Fatalf("coreService: %v, code %d, stderr %q", lm, code, errOut.String())
	}
	if all, err := lm.List(env.context()); err != nil || len(all) != 0 {
		t.Fatalf("a new data folder's carried models: %v, %v", all, err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	errOut.Reset()
	bad := &cliEnv{stdout: &bytes.Buffer{}, stderr: &errOut, dataDir: file}
	defer bad.close()
	if lm, code := coreService(bad, (*core.Core).LocalModels); lm != nil || code != exitFail || !strings.HasPrefix(errOut.String(), "rehome: ") {
		t.Fatalf("a file as data folder: %v, code %d, stderr %q", lm, code, errOut.String())
	}
}

// TestParseOne checks the parse of a command on one thing: its word
// before or after the flags, and the usage error need when it is missing
// or followed by another.
func TestParseOne(t *testing.T) {
	parse := func(args ...string) (string, bool, int, string) {
		var errOut bytes.Buffer
		env := &cliEnv{stdout: &bytes.Buffer{}, stderr: &errOut}
		fs := env.flags("conversations rm", "conversations rm ID")
		format := fs.String("format", "md", "a flag with a value")
		asJSON := fs.Bool("json", false, "print JSON")
		word, code, ok := parseOne(env, fs, args, "give one id: 100% sure")
		return fmt.Sprintf("%s/%s/%v", word, *format, *asJSON), ok, code, errOut.String()
	}
	for _, args := range [][]string{{"c1", "--format", "ipynb", "--json"}, {"--json", "--format=ipynb", "c1"}} {
		if got, ok, code, _ := parse(args...); !ok || code != exitOK || got != "c1/ipynb/true" {
			t.Fatalf("%q: %q, ok %v, code %d", args, got, ok, code)
		}
	}
	for _, args := range [][]string{{}, {"c1", "c2"}, {"--format", "ipynb"}} {
		if _, ok, code, errOut := parse(args...); ok || code != exitUsage || errOut != "rehome: give one id: 100% sure\n" {
			t.Fatalf("%q: ok %v, code %d, stderr %q", args, ok, code, errOut)
		}
	}
}

// TestFailLimits checks how run, session, ask and settings end on limits
// core refused: out of range is a usage error in the command's words
// (wrapped or not), anything else a failure.
func TestFailLimits(t *testing.T) {
	end := func(err error, format string) (int, string) {
		var errOut bytes.Buffer
		env := &cliEnv{stdout: &bytes.Buffer{}, stderr: &errOut}
		return env.failLimits(err, format), errOut.String()
	}
	limits := &core.LimitsError{Err: errors.New("memory 1TiB is above this machine's 16GiB")}
	if code, out := end(fmt.Errorf("saving: %w", limits), "%v: nothing was saved"); code != exitUsage || out != "rehome: saving: memory 1TiB is above this machine's 16GiB: nothing was saved\n" {
		t.Fatalf("limits: code %d, %q", code, out)
	}
	if code, out := end(errors.New("the database is closed"), "--timeout: %v"); code != exitFail || out != "rehome: the database is closed\n" {
		t.Fatalf("other: code %d, %q", code, out)
	}
}

// TestAuditIDs checks the start of audit show, compare, checklist and rm:
// a wrong count of ids stops before the data folder opens; then flags
// may follow a --, as they always could there.
func TestAuditIDs(t *testing.T) {
	start := func(args ...string) (*cliEnv, []string, *core.Audits, int, bool, string) {
		var errOut bytes.Buffer
		env := &cliEnv{stdout: &bytes.Buffer{}, stderr: &errOut, dataDir: filepath.Join(t.TempDir(), "data")}
		t.Cleanup(env.close)
		fs := env.flags("audit compare", "audit compare ID ID [--json]")
		asJSON := fs.Bool("json", false, "print JSON")
		pos, svc, code := auditIDs(env, fs, args, 2, "audit compare: give two audit ids")
		return env, pos, svc, code, *asJSON, errOut.String()
	}
	env, pos, svc, code, asJSON, errOut := start("a", "--", "b", "--json")
	if svc == nil || code != exitOK || strings.Join(pos, ",") != "a,b" || !asJSON {
		t.Fatalf("two ids: %q, %v, code %d, json %v, stderr %q", pos, svc, code, asJSON, errOut)
	}
	if env.c == nil {
		t.Fatal("two ids did not open the core")
	}
	env, _, svc, code, _, errOut = start("a")
	if svc != nil || code != exitUsage || errOut != "rehome: audit compare: give two audit ids\n" || env.c != nil {
		t.Fatalf("one id: %v, code %d, stderr %q, core opened %v", svc, code, errOut, env.c != nil)
	}
}
