package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rehome/backend/store"
	"rehome/internal/testsupport/rehomebin"
)

// rehomeBin is the binary under test: $REHOME_BIN (make test sets it to
// build/bin/rehome), else one built by TestMain.
var rehomeBin string

func TestMain(m *testing.M) { rehomebin.Main(m, &rehomeBin, "the CLI tests") }

// cliResult is what one run of the binary printed and returned.
type cliResult struct {
	stdout, stderr string
	code           int
}

// rehomeCLI runs the binary with REHOME_HOME=home and returns its output.
func rehomeCLI(t *testing.T, home string, args ...string) cliResult {
	t.Helper()
	return rehomeCLIIn(t, home, nil, args...)
}

func rehomeCLIIn(t *testing.T, home string, stdin io.Reader, args ...string) cliResult {
	t.Helper()
	return rehomeAt(t, home, "", stdin, args...)
}

// cleanEnv is the environment without a display (no test opens a
// window) or a data folder.
var cleanEnv = rehomebin.Env

// wantUsageError checks the one-line error and exit code 2 of bad usage.
func wantUsageError(t *testing.T, r cliResult, contains string) {
	t.Helper()
	if r.code != 2 {
		t.Fatalf("exit code %d, want 2; stderr %q", r.code, r.stderr)
	}
	if lines := strings.Count(strings.TrimRight(r.stderr, "\n"), "\n") + 1; lines != 1 || r.stderr == "" {
		t.Fatalf("want a one-line error, got %q", r.stderr)
	}
	if !strings.Contains(r.stderr, contains) {
		t.Fatalf("error %q does not mention %q", r.stderr, contains)
	}
	if r.stdout != "" {
		t.Fatalf("bad usage printed to stdout: %q", r.stdout)
	}
}

func TestVersionAndHelp(t *testing.T) {
	home := t.TempDir()
	r := rehomeCLI(t, home, "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "rehome ") {
		t.Fatalf("version: %+v", r)
	}
	r = rehomeCLI(t, home, "--help")
	if r.code != 0 {
		t.Fatalf("--help: %+v", r)
	}
	for _, c := range tree().shown() {
		if !strings.Contains(r.stdout, c.name) {
			t.Errorf("--help does not list %s", c.name)
		}
		h := rehomeCLI(t, home, c.name, "--help")
		if h.code != 0 || !strings.Contains(h.stdout, "usage:") {
			t.Errorf("%s --help: code %d stdout %q stderr %q", c.name, h.code, h.stdout, h.stderr)
		}
	}
	wantUsageError(t, rehomeCLI(t, home, "frobnicate"), "unknown command")
	wantUsageError(t, rehomeCLI(t, home, "--frob"), "unknown flag")
	wantUsageError(t, rehomeCLI(t, home, "version", "extra"), "no arguments")
	wantUsageError(t, rehomeCLI(t, home, "assistants", "frob"), "unknown command")
	wantUsageError(t, rehomeCLI(t, home, "sandbox", "image", "frob"), `unknown command "frob" for "rehome sandbox image"`)
	wantUsageError(t, rehomeCLI(t, home, "models", "frob"), `unknown command "frob" for "rehome models"`)
	// A group alone is its help on stderr, a usage error; help GROUP is
	// GROUP --help; the top-level lines list each group's subcommands.
	if g := rehomeCLI(t, home, "actions"); g.code != 2 || !strings.Contains(g.stderr, "  signin ") || g.stdout != "" {
		t.Errorf("actions alone: %+v", g)
	}
	if a, b := rehomeCLI(t, home, "help", "sandbox", "image"), rehomeCLI(t, home, "sandbox", "image", "--help"); a.code != 0 || a.stdout != b.stdout || !strings.Contains(a.stdout, "  status ") {
		t.Errorf("help sandbox image: %+v, sandbox image --help: %+v", a, b)
	}
	if !strings.Contains(r.stdout, "manage stored assistants (add, list, show, edit, rm, import, export)\n") {
		t.Errorf("--help does not list assistants' subcommands: %q", r.stdout)
	}
	// Audit, models and settings run alone too: their --help is their
	// flags, then their subcommands.
	if h := rehomeCLI(t, home, "audit", "--help"); h.code != 0 || !strings.Contains(h.stdout, "-assistant") || !strings.Contains(h.stdout, "  checklist ") {
		t.Errorf("audit --help: %+v", h)
	}
}

func addAssistant(t *testing.T, home string, args ...string) map[string]any {
	t.Helper()
	r := rehomeCLI(t, home, append([]string{"assistants", "add", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("assistants add %v: %+v", args, r)
	}
	var a map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &a); err != nil {
		t.Fatalf("add printed no JSON: %q", r.stdout)
	}
	return a
}

func TestAssistantsLifecycle(t *testing.T) {
	home := t.TempDir()
	r := rehomeCLI(t, home, "assistants", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "No assistants yet") {
		t.Fatalf("empty list: %+v", r)
	}
	instr := filepath.Join(t.TempDir(), "instr.txt")
	os.WriteFile(instr, []byte("You analyse sales CSVs.\nAlways plot."), 0o600)
	a := addAssistant(t, home, "--name", "Sales analyst", "--description", "charts sales",
		"--instructions-file", instr, "--starter", "Plot revenue", "--starter", "Top customers?",
		"--capability", "code_interpreter", "--capability", "vision,web_browsing")
	id := a["id"].(string)
	if a["name"] != "Sales analyst" || a["instructions"] != "You analyse sales CSVs.\nAlways plot." {
		t.Fatalf("stored record: %v", a)
	}
	if caps := a["capabilities"].([]any); len(caps) != 3 {
		t.Fatalf("capabilities: %v", caps)
	}
	if st := a["starters"].([]any); len(st) != 2 || st[1] != "Top customers?" {
		t.Fatalf("starters: %v", st)
	}
	b := addAssistant(t, home, "--name", "Second")

	// list: newest first, in JSON and as text.
	r = rehomeCLI(t, home, "assistants", "list", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 2 {
		t.Fatalf("list --json: %v %q", err, r.stdout)
	}
	if list[0]["id"] != b["id"] || list[1]["id"] != id {
		t.Fatalf("list is not newest first: %v", list)
	}
	r = rehomeCLI(t, home, "assistants", "list")
	if !strings.Contains(r.stdout, "Sales analyst") || !strings.Contains(r.stdout, id) {
		t.Fatalf("list text: %q", r.stdout)
	}

	// show
	r = rehomeCLI(t, home, "assistants", "show", id)
	if r.code != 0 || !strings.Contains(r.stdout, "Plot revenue") || !strings.Contains(r.stdout, "Always plot.") {
		t.Fatalf("show: %+v", r)
	}
	r = rehomeCLI(t, home, "assistants", "show", "--json", id)
	var shown map[string]any
	if json.Unmarshal([]byte(r.stdout), &shown); shown["id"] != id {
		t.Fatalf("show --json (flag first): %+v", r)
	}

	// edit: only the given fields change, the creation time stays.
	r = rehomeCLI(t, home, "assistants", "edit", id, "--name", "Sales analyst v2", "--json")
	var edited map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &edited); err != nil || r.code != 0 {
		t.Fatalf("edit: %+v", r)
	}
	if edited["name"] != "Sales analyst v2" || edited["description"] != "charts sales" || edited["created"] != a["created"] || edited["updated"] == a["updated"] {
		t.Fatalf("edit changed the wrong fields: %v", edited)
	}

	// rm
	r = rehomeCLI(t, home, "assistants", "rm", id)
	if r.code != 0 || !strings.Contains(r.stdout, "Deleted") {
		t.Fatalf("rm: %+v", r)
	}
	r = rehomeCLI(t, home, "assistants", "show", id)
	if r.code != 1 || !strings.Contains(r.stderr, "not found") || !strings.Contains(r.stderr, "assistants list") {
		t.Fatalf("show after rm: %+v", r)
	}
}

func TestAssistantsBadInput(t *testing.T) {
	home := t.TempDir()
	wantUsageError(t, rehomeCLI(t, home, "assistants", "add"), "--name is required")
	wantUsageError(t, rehomeCLI(t, home, "assistants", "add", "--name"), "flag needs an argument")
	wantUsageError(t, rehomeCLI(t, home, "assistants", "add", "--bogus", "x"), "not defined")
	wantUsageError(t, rehomeCLI(t, home, "assistants", "add", "--name", "a", "stray"), "unexpected argument")
	wantUsageError(t, rehomeCLI(t, home, "assistants", "add", "--name", "a", "--instructions-file", "/no/such/file"), "no such file")
	wantUsageError(t, rehomeCLI(t, home, "assistants", "show"), "exactly one")
	wantUsageError(t, rehomeCLI(t, home, "assistants", "rm"), "exactly one")
	wantUsageError(t, rehomeCLI(t, home, "assistants", "edit", "someid"), "nothing to change")

	r := rehomeCLI(t, home, "assistants", "add", "--name", "x", "--capability", "teleport")
	if r.code != 1 || !strings.Contains(r.stderr, `unknown capability "teleport"`) || !strings.Contains(r.stderr, "code_interpreter") {
		t.Fatalf("bad capability: %+v", r)
	}
	r = rehomeCLI(t, home, "assistants", "add", "--name", "   ")
	if r.code != 1 || !strings.Contains(r.stderr, "name is empty") {
		t.Fatalf("blank name: %+v", r)
	}
	r = rehomeCLI(t, home, "assistants", "add", "--name", strings.Repeat("n", 201))
	if r.code != 1 || !strings.Contains(r.stderr, "longer than 200") {
		t.Fatalf("long name: %+v", r)
	}
	for _, sub := range []string{"rm", "edit"} {
		args := []string{"assistants", sub, "00000000000000000000000000"}
		if sub == "edit" {
			args = append(args, "--name", "x")
		}
		r = rehomeCLI(t, home, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "not found") {
			t.Fatalf("%s missing: %+v", sub, r)
		}
	}
	// Nothing half-written survived the failures.
	r = rehomeCLI(t, home, "assistants", "list", "--json")
	if strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("failed adds left records: %q", r.stdout)
	}
}

func TestDoctorAndBackup(t *testing.T) {
	home := t.TempDir()
	addAssistant(t, home, "--name", "kept")
	r := rehomeCLI(t, home, "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "ok    database") || !strings.Contains(r.stdout, "ok    integrity") {
		t.Fatalf("doctor on a sound store: %+v", r)
	}
	var rep struct {
		OK       bool
		Findings []finding
	}
	r = rehomeCLI(t, home, "doctor", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || !rep.OK || len(rep.Findings) < 4 {
		t.Fatalf("doctor --json: %v %+v", err, r)
	}

	dst := filepath.Join(t.TempDir(), "copy.db")
	r = rehomeCLI(t, home, "backup", dst)
	if r.code != 0 || !strings.Contains(r.stdout, "Wrote") {
		t.Fatalf("backup: %+v", r)
	}
	st, err := store.Open(dst, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := st.Count(store.Assistants); n != 1 {
		t.Fatalf("backup holds %d assistants", n)
	}
	st.Close()
	wantUsageError(t, rehomeCLI(t, home, "backup"), "give the file")
	wantUsageError(t, rehomeCLI(t, home, "backup", t.TempDir()), "is a folder")
	r = rehomeCLI(t, home, "backup", "/no/such/dir/x.db")
	if r.code != 1 || !strings.Contains(r.stderr, "backup") {
		t.Fatalf("backup to a missing folder: %+v", r)
	}

	// A damaged file: doctor says so and exits 1, without crashing.
	data, _ := os.ReadFile(filepath.Join(home, store.FileName))
	pg := os.Getpagesize()
	for i := 2 * pg; i < 2*pg+128 && i < len(data); i++ {
		data[i] = 0xee
	}
	os.WriteFile(filepath.Join(home, store.FileName), data, 0o600)
	r = rehomeCLI(t, home, "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "fail") || strings.Contains(r.stderr, "panic") {
		t.Fatalf("doctor on a damaged store: %+v", r)
	}
}

// startServe runs `rehome serve` and returns its URL and the process.
func startServe(t *testing.T, home string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(rehomeBin, "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(cleanEnv(), "REHOME_HOME="+home)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "http://") {
				urlc <- sc.Text()
			}
		}
	}()
	select {
	case u := <-urlc:
		return u, cmd
	case <-time.After(20 * time.Second):
		t.Fatal("rehome serve printed no URL")
	}
	return "", nil
}

func TestServeLockAndToken(t *testing.T) {
	home := t.TempDir()
	url, cmd := startServe(t, home)
	if !strings.Contains(url, "?token=") || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("serve URL %q", url)
	}
	base := strings.SplitN(url, "/?", 2)[0]
	token := strings.SplitN(url, "token=", 2)[1]

	// The database is held: a second process runs its command in serve
	// (door_test.go has the rest), quickly.
	start := time.Now()
	r := rehomeCLI(t, home, "assistants", "list")
	if r.code != 0 || strings.Contains(r.stderr, "in use by another rehome") {
		t.Fatalf("second process: %+v", r)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("second process took %v", took)
	}
	r = rehomeCLI(t, home, "doctor")
	if strings.Contains(r.stdout, "in use") {
		t.Fatalf("doctor beside serve: %+v", r)
	}

	call := func(method, body string, hdr map[string]string) (int, string) {
		req, _ := http.NewRequest("POST", base+"/api/call/"+method, strings.NewReader(body))
		for k, v := range hdr {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, _ := call("ListAssistants", "[]", nil); code != http.StatusUnauthorized {
		t.Fatalf("no token: HTTP %d", code)
	}
	if code, _ := call("ListAssistants", "[]", map[string]string{"X-Rehome-Token": "wrong"}); code != http.StatusUnauthorized {
		t.Fatalf("wrong token: HTTP %d", code)
	}
	if code, _ := call("ListAssistants", "[]", map[string]string{"X-Rehome-Token": token, "Host": "evil.example:80"}); code != http.StatusForbidden {
		t.Fatalf("foreign Host: HTTP %d", code)
	}
	code, body := call("CreateAssistant", `[{"name":"via bridge","capabilities":["vision"]}]`, map[string]string{"X-Rehome-Token": token})
	if code != 200 || !strings.Contains(body, `"via bridge"`) {
		t.Fatalf("create via bridge: %d %s", code, body)
	}
	code, body = call("CreateAssistant", `[{"name":""}]`, map[string]string{"X-Rehome-Token": token})
	if code != 200 || !strings.Contains(body, `"error":"invalid assistant: name is empty`) {
		t.Fatalf("invalid create via bridge: %d %s", code, body)
	}
	code, body = call("CreateAssistant", `{"not":"an array"}`, map[string]string{"X-Rehome-Token": token})
	if code != 400 {
		t.Fatalf("bad arguments: %d %s", code, body)
	}
	code, _ = call("NoSuchMethod", `[]`, map[string]string{"X-Rehome-Token": token})
	if code != 404 {
		t.Fatalf("unknown method: %d", code)
	}
	// The page itself: without the token refused, with it a cookie and the app.
	res, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("page without token: %d", res.StatusCode)
	}

	// SIGTERM ends it cleanly and releases the lock.
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve ignored SIGTERM")
	}
	r = rehomeCLI(t, home, "assistants", "list", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, "via bridge") {
		t.Fatalf("after serve: %+v", r)
	}
}

func TestNoDisplayFallsBackToServe(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command(rehomeBin)
	cmd.Env = append(cleanEnv(), "REHOME_HOME="+home)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") || !strings.Contains(line, "token=") {
		t.Fatalf("no-display start printed %q (%v), stderr %q", line, err, errb.String())
	}
	if !strings.Contains(errb.String(), "no display found") {
		t.Fatalf("no explanation on stderr: %q", errb.String())
	}
}
