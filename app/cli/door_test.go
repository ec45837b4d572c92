package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// beside is a `rehome serve` holding a data folder, with its own runtime
// folder (where its socket for the terminal is), and the bridge's calls.
type beside struct {
	home, runtime string
	base, token   string
	serve         *exec.Cmd
}

func startBeside(t *testing.T) *beside {
	t.Helper()
	rt := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", rt) // serve and the commands below share it
	b := &beside{home: t.TempDir(), runtime: rt}
	url, cmd := startServe(t, b.home)
	b.serve = cmd
	b.base = strings.SplitN(url, "/?", 2)[0]
	b.token = strings.SplitN(url, "token=", 2)[1]
	return b
}

// call calls an App method through the bridge, as the browser does.
func (b *beside) call(t *testing.T, method string, args ...any) string {
	t.Helper()
	if args == nil {
		args = []any{}
	}
	body, _ := json.Marshal(args)
	req, _ := http.NewRequest("POST", b.base+"/api/call/"+method, bytes.NewReader(body))
	req.Header.Set("X-Rehome-Token", b.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("%s through the bridge: HTTP %d %s", method, res.StatusCode, out)
	}
	return string(out)
}

// rehomeAt runs the binary with REHOME_HOME=home in folder dir ("": this
// one) with stdin, and returns its output.
func rehomeAt(t *testing.T, home, dir string, stdin io.Reader, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(rehomeBin, args...)
	cmd.Env = append(cleanEnv(), "REHOME_HOME="+home)
	cmd.Dir, cmd.Stdin = dir, stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run rehome %v: %v", args, err)
	}
	return cliResult{out.String(), errb.String(), code}
}

// The terminal beside `rehome serve`: assistants, knowledge (a path
// relative to the terminal's folder), an import read from stdin, doctor,
// ask, usage errors and exit codes all work as they do alone, and what one
// face adds the other lists at once.
func TestTerminalBesideServe(t *testing.T) {
	b := startBeside(t)
	home := b.home

	a := addAssistant(t, home, "--name", "Beside the window")
	id := a["id"].(string)
	if got := b.call(t, "ListAssistants"); !strings.Contains(got, "Beside the window") {
		t.Fatalf("the window does not list what the terminal added: %s", got)
	}
	b.call(t, "CreateAssistant", map[string]any{"name": "From the window"})
	r := rehomeCLI(t, home, "assistants", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "From the window") || !strings.Contains(r.stdout, "Beside the window") {
		t.Fatalf("assistants list beside serve: %+v", r)
	}

	// knowledge add FILE, relative to the terminal's working folder.
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "notes.txt"), []byte("The warehouse in Lyon ships on Tuesdays.\n"), 0o600)
	r = rehomeAt(t, home, work, nil, "knowledge", "add", id, "notes.txt")
	if r.code != 0 || !strings.Contains(r.stderr, "notes.txt") {
		t.Fatalf("knowledge add beside serve: %+v", r)
	}
	if got := b.call(t, "KnowledgeList", id); !strings.Contains(got, "notes.txt") {
		t.Fatalf("the window does not list the knowledge the terminal added: %s", got)
	}
	r = rehomeCLI(t, home, "knowledge", "search", id, "Lyon")
	if r.code != 0 || !strings.Contains(r.stdout, "Tuesdays") {
		t.Fatalf("knowledge search beside serve: %+v", r)
	}

	// stdin crosses: an import from -.
	r = rehomeAt(t, home, work, strings.NewReader(`{"name": "Piped in", "instructions": "Be brief."}`), "assistants", "import", "-", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"Piped in"`) {
		t.Fatalf("assistants import - beside serve: %+v", r)
	}

	// The same exit codes and one-line errors.
	wantUsageError(t, rehomeCLI(t, home, "assistants", "add", "--bogus"), "bogus")
	r = rehomeCLI(t, home, "assistants", "show", "no-such-id")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "rehome: ") {
		t.Fatalf("show a missing assistant beside serve: %+v", r)
	}

	// doctor checks the database the window holds, not "in use".
	r = rehomeCLI(t, home, "doctor")
	if strings.Contains(r.stdout+r.stderr, "in use") || !strings.Contains(r.stdout, "database") {
		t.Fatalf("doctor beside serve: %+v", r)
	}

	// ask against a model server: the answer streams to the terminal, the
	// conversation is the window's at once.
	srv := recordedOllama(t, "escapes-answer")
	r = rehomeCLI(t, home, "ask", "--server", srv.URL, "--model", "qwen2.5:7b", "--json", "q")
	if r.code != 0 || !strings.Contains(r.stdout, "conversation_id") {
		t.Fatalf("ask beside serve: %+v", r)
	}
	var tr struct {
		ConversationID string `json:"conversation_id"`
	}
	json.Unmarshal([]byte(r.stdout), &tr)
	if got := b.call(t, "ListConversations", 0); tr.ConversationID == "" || !strings.Contains(got, tr.ConversationID) {
		t.Fatalf("the window does not list the conversation the terminal had (%s): %s", tr.ConversationID, got)
	}

	// serve itself is not passed on: it says the folder is held.
	r = rehomeCLI(t, home, "serve")
	if r.code == 0 {
		t.Fatalf("a second serve on a held folder: %+v", r)
	}

	// And once serve ends, the terminal opens the folder itself again.
	b.serve.Process.Signal(syscall.SIGTERM)
	b.serve.Wait()
	r = rehomeCLI(t, home, "assistants", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "Piped in") {
		t.Fatalf("after serve: %+v", r)
	}
}

// A y/n question at the terminal crosses the door: asked on the
// terminal's pty, answered there, "n" denies and "y" allows.
func TestTerminalPromptBesideServe(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("skipped: no script(1) to give the command a terminal")
	}
	b := startBeside(t)
	srv, seen := shopServer(t)
	schema := shopSchemaFile(t, srv.URL)
	id := addAssistant(t, b.home, "--name", "Shop")["id"].(string)
	r := rehomeCLIIn(t, b.home, strings.NewReader(cliCanary+"\n"), "actions", "add", id, schema, "--auth", "bearer", "--key-stdin", "--allow-local")
	if r.code != 0 {
		t.Fatalf("actions add beside serve: %+v", r)
	}
	posts := func() int {
		n := 0
		for _, h := range seen() {
			if strings.HasPrefix(h, "POST") {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		answer string
		made   int
	}{{"n", 0}, {"y", 1}} {
		before := posts()
		cmd := exec.Command("script", "-qec", fmt.Sprintf("%s actions test %s placeOrder --args '{\"sku\": \"B2\"}'", rehomeBin, id), "/dev/null")
		cmd.Env = append(cleanEnv(), "REHOME_HOME="+b.home)
		cmd.Stdin = strings.NewReader(c.answer + "\n")
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), "Shop wants to call placeOrder (POST on 127.0.0.1") {
			t.Fatalf("no question at the terminal beside serve: %s", out)
		}
		if got := posts() - before; got != c.made {
			t.Fatalf("answer %q: %d POSTs made, want %d\n%s", c.answer, got, c.made, out)
		}
	}
}

// Ctrl-C at the terminal stops the command the holder runs for it: exit
// 130, the holder still serving.
func TestTerminalInterruptBesideServe(t *testing.T) {
	b := startBeside(t)
	asked := make(chan struct{}, 1)
	hang := newHangingServer(t, asked)
	cmd := exec.Command(rehomeBin, "ask", "--server", hang+"/v1", "--model", "m", "q")
	cmd.Env = append(cleanEnv(), "REHOME_HOME="+b.home)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-asked:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the model server was never asked: %s", errb.String())
	}
	start := time.Now()
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("Ctrl-C did not end the command")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(errb.String(), "interrupted") {
		t.Fatalf("after Ctrl-C: exit %d, stderr %q", code, errb.String())
	}
	t.Logf("Ctrl-C ended the command in %v", time.Since(start))
	if r := rehomeCLI(t, b.home, "assistants", "list"); r.code != 0 {
		t.Fatalf("serve after the interrupted command: %+v", r)
	}
}

// newHangingServer is a model server that takes requests and never
// answers them (until the client goes); asked gets a value at the first.
func newHangingServer(t *testing.T, asked chan<- struct{}) string {
	t.Helper()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case asked <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	})}
	ln := listenLoopback(t)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// A socket a dead holder left is ignored: the terminal opens the data
// folder itself.
func TestTerminalStaleSocket(t *testing.T) {
	b := startBeside(t)
	b.serve.Process.Kill() // SIGKILL: no clean-up, the socket stays
	b.serve.Wait()
	socks, _ := filepath.Glob(filepath.Join(b.runtime, "rehome", "door-*.sock"))
	if len(socks) != 1 {
		t.Fatalf("serve left no socket in %s: %v", b.runtime, socks)
	}
	start := time.Now()
	r := rehomeCLI(t, b.home, "assistants", "list")
	if r.code != 0 {
		t.Fatalf("beside a dead holder's socket: %+v", r)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the stale socket cost %v", took)
	}
}

// Another user is refused, by the client (it will not talk to a holder of
// another uid) and by the holder (it runs nothing for one), even when the
// socket is reachable: the folder and the socket opened up by hand.
func TestTerminalOtherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("skipped: trying the socket as another user needs root (runuser)")
	}
	if _, err := exec.LookPath("runuser"); err != nil {
		t.Skip("skipped: no runuser")
	}
	b := startBeside(t)
	socks, _ := filepath.Glob(filepath.Join(b.runtime, "rehome", "door-*.sock"))
	if len(socks) != 1 {
		t.Fatalf("no socket in %s", b.runtime)
	}
	sock := socks[0]
	st, _ := os.Stat(sock)
	dst, _ := os.Stat(filepath.Dir(sock))
	if st.Mode().Perm() != 0o600 || dst.Mode().Perm() != 0o700 {
		t.Fatalf("socket %v, folder %v: want 0600 and 0700", st.Mode().Perm(), dst.Mode().Perm())
	}
	// Make it reachable by nobody: a link to it where nobody's rehome
	// looks without a runtime folder (Podman's library refuses a
	// runtime folder of another user), the folders on the way opened.
	nobodyDir := filepath.Join(os.TempDir(), "rehome-65534")
	if _, err := os.Lstat(nobodyDir); err == nil {
		t.Skipf("skipped: %s exists (a real session of nobody's?)", nobodyDir)
	}
	os.Mkdir(nobodyDir, 0o700)
	os.Chown(nobodyDir, 65534, 65534)
	t.Cleanup(func() { os.RemoveAll(nobodyDir) })
	link := filepath.Join(nobodyDir, filepath.Base(sock))
	if err := os.Link(sock, link); err != nil {
		t.Skipf("skipped: cannot link the socket for nobody: %v", err)
	}
	os.Chmod(sock, 0o666)
	os.Chmod(filepath.Dir(b.home), 0o755)
	os.Chmod(b.home, 0o755)

	// The client as nobody: refuses a holder of another uid.
	out, err := exec.Command("runuser", "-u", "nobody", "--", "env", "-u", "XDG_RUNTIME_DIR", "REHOME_HOME="+b.home, "TMPDIR="+os.TempDir(),
		rehomeBin, "assistants", "add", "--name", "pwned").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "another user") {
		t.Fatalf("the client as nobody: %v %s", err, out)
	}
	// A raw client as nobody: the holder answers nothing and runs nothing.
	py := `import socket,struct,sys,json
s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
h=json.dumps({"version":sys.argv[2],"args":["assistants","add","--name","pwned"]}).encode()
try:
    s.sendall(b"h"+struct.pack(">I",len(h))+h); got=s.recv(100)
except OSError as e:
    got=b""
print("got", repr(got))`
	ver := strings.TrimSpace(strings.TrimPrefix(rehomeCLI(t, b.home, "version").stdout, "rehome "))
	out, err = exec.Command("runuser", "-u", "nobody", "--", "/usr/bin/python3", "-c", py, link, ver).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "got b''") {
		t.Fatalf("a raw client as nobody: %v %s", err, out)
	}
	if r := rehomeCLI(t, b.home, "assistants", "list"); r.code != 0 || strings.Contains(r.stdout, "pwned") {
		t.Fatalf("after another user's tries: %+v", r)
	}
}

func listenLoopback(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// A Code Interpreter session beside serve: started through serve (its
// relay does not wait on the held database), a cell run from stdin and
// kept where the window lists it, stopped.
func TestTerminalSessionBesideServe(t *testing.T) {
	needPodman(t)
	b := startBeside(t)
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "sales.csv"), []byte("month,revenue\n1,10\n2,14\n"), 0o644)
	r := rehomeAt(t, b.home, dir, nil, "session", "start", "--file", "sales.csv", "--idle", "5m")
	if r.code != 0 {
		t.Fatalf("session start beside serve: %+v", r)
	}
	id := strings.TrimSpace(r.stdout)
	t.Cleanup(func() { rehomeCLI(t, b.home, "session", "stop", id) })
	r = rehomeCLIIn(t, b.home, strings.NewReader("import pandas as pd\nint(pd.read_csv('sales.csv').revenue.sum())\n"), "session", "exec", id, "-")
	if r.code != 0 || !strings.Contains(r.stdout, "24") || strings.Contains(r.stderr, "not kept") {
		t.Fatalf("session exec beside serve: %+v", r)
	}
	if got := b.call(t, "ListRuns", 10); !strings.Contains(got, `"session"`) {
		t.Fatalf("the window does not list the terminal's cell: %s", got)
	}
	if r = rehomeCLI(t, b.home, "session", "stop", id); r.code != 0 {
		t.Fatalf("session stop beside serve: %+v", r)
	}
}
