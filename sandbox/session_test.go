package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containers/podman/v4/pkg/bindings/containers"
)

// TestLastExpressionShown: a one-shot run shows its last expression like a
// notebook cell (a DataFrame as a table), display() works, and an error
// still comes with its traceback.
func TestLastExpressionShown(t *testing.T) {
	dir := hostDir(t)
	input := writeFile(t, dir, "data.csv", []byte("a,b\n1,x\n2,y\n3,z\n"))
	res := runCode(t, `import pandas as pd
df = pd.read_csv('/mnt/data/data.csv')
display("shown", 7)
df.head(2)
`, Limits{}, input)
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
	}
	if len(res.Displays) != 3 {
		t.Fatalf("displays: %+v", res.Displays)
	}
	if d := res.Displays[0]; d.Kind != "text" || d.Text != "'shown'" || d.Result {
		t.Errorf("display(): %+v", d)
	}
	tab := res.Displays[2]
	if tab.Kind != "table" || !tab.Result || strings.Join(tab.Columns, ",") != "a,b" || len(tab.Rows) != 2 ||
		strings.Join(tab.Rows[1], ",") != "2,y" || strings.Join(tab.Index, ",") != "0,1" || !strings.Contains(tab.Text, "x") {
		t.Errorf("table: %+v", tab)
	}

	res = runCode(t, "x = 1\nx + 1  # NONZERO_OK\n1/0\n", Limits{}, "")
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "ZeroDivisionError") || !strings.Contains(res.Stderr, "line 3") || len(res.Displays) != 0 {
		t.Errorf("error cell: exit %d, displays %+v, stderr %q", res.ExitCode, res.Displays, res.Stderr)
	}
	res = runCode(t, "x = 5\nx\n", Limits{}, "")
	if len(res.Displays) != 1 || res.Displays[0].Text != "5" || !res.Displays[0].Result {
		t.Errorf("plain value: %+v", res.Displays)
	}
}

// startSession starts a session in a fresh folder, stopped at the end.
func startSession(t *testing.T, input string, lim Limits) *Session {
	t.Helper()
	e := testEngine(t)
	s, err := e.StartSession(context.Background(), SessionRequest{InputPath: input, Limits: lim, Dir: filepath.Join(t.TempDir(), "session"), Preload: []string{}})
	if err != nil {
		t.Fatalf("start session: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(context.Background()); err != nil {
			t.Errorf("stop: %v", err)
		}
		list, err := containers.List(e.api(context.Background()), new(containers.ListOptions).WithAll(true).
			WithFilters(map[string][]string{"label": {labelSession + "=" + s.ID()}}))
		if err != nil || len(list) != 0 {
			t.Errorf("session container left behind: %v %+v", err, list)
		}
	})
	return s
}

func execCell(t *testing.T, s *Session, code string, timeout time.Duration) *CellResult {
	t.Helper()
	res, err := s.Exec(context.Background(), code, timeout, nil)
	if err != nil {
		t.Fatalf("exec %q: %v", code, err)
	}
	return res
}

// TestSessionKeepsState: variables and imports survive cells, the last
// expression shows, an error keeps the state, files come back per cell.
func TestSessionKeepsState(t *testing.T) {
	dir := hostDir(t)
	input := writeFile(t, dir, "data.csv", []byte("a,b\n1,x\n2,y\n3,z\n"))
	s := startSession(t, input, Limits{})
	r := execCell(t, s, "import pandas as pd\ndf = pd.read_csv('data.csv')\nprint(len(df))", 0)
	if r.Status != "ok" || r.Stdout != "3\n" || r.Cell != 1 {
		t.Fatalf("cell 1: %+v", r)
	}
	r = execCell(t, s, "df['c'] = df['a'] * 10\ndf", 0)
	if r.Status != "ok" || r.Cell != 2 || len(r.Displays) != 1 || r.Displays[0].Kind != "table" || strings.Join(r.Displays[0].Columns, ",") != "a,b,c" {
		t.Fatalf("cell 2: %+v", r)
	}
	r = execCell(t, s, "undefined_name", 0)
	if r.Status != "error" || !strings.Contains(r.Stderr, "NameError") || r.StateLost {
		t.Fatalf("cell 3: %+v", r)
	}
	r = execCell(t, s, "df.to_csv('out.csv')\nimport matplotlib.pyplot as plt\nplt.plot([1,2])\nplt.show()\nint(df['c'].sum())", 0)
	if r.Status != "ok" || len(r.Displays) != 1 || r.Displays[0].Text != "60" {
		t.Fatalf("cell 4: %+v", r)
	}
	kinds := map[string]string{}
	for _, f := range r.Files {
		kinds[f.Name] = f.Kind
	}
	if kinds["out.csv"] != "file" || kinds["plot-001.png"] != "plot" || len(r.Files) != 2 {
		t.Fatalf("cell 4 files: %+v", r.Files)
	}
	// Unchanged files are not sent again.
	r = execCell(t, s, "print('again')", 0)
	if len(r.Files) != 0 || r.Stdout != "again\n" {
		t.Fatalf("cell 5: %+v", r)
	}
}

// TestSessionInterrupt: a runaway cell is interrupted at its limit with
// the state kept; one that ignores SIGINT is killed and the state is lost.
func TestSessionInterrupt(t *testing.T) {
	s := startSession(t, "", Limits{})
	execCell(t, s, "kept = 42", 0)
	for _, code := range []string{"while True: pass", "import time\ntime.sleep(60)"} {
		start := time.Now()
		r := execCell(t, s, code, time.Second)
		if r.Status != "interrupted" || !r.TimedOut || r.StateLost || !strings.Contains(r.Stderr, "KeyboardInterrupt") {
			t.Fatalf("%q: %+v", code, r)
		}
		if el := time.Since(start); el > 4*time.Second {
			t.Errorf("%q: interrupted after %s", code, el)
		}
		if r := execCell(t, s, "kept", 0); len(r.Displays) != 1 || r.Displays[0].Text != "42" {
			t.Fatalf("state after %q: %+v", code, r)
		}
	}
	// Interrupt from outside (the Stop button) while the cell runs.
	go func() { time.Sleep(500 * time.Millisecond); s.Interrupt() }()
	r := execCell(t, s, "import time\ntime.sleep(30)", 0)
	if r.Status != "interrupted" || r.TimedOut || r.StateLost {
		t.Fatalf("interrupt: %+v", r)
	}
	start := time.Now()
	r = execCell(t, s, "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True: pass", time.Second)
	if r.Status != "killed" || !r.StateLost || !strings.Contains(r.Summary, "state is lost") {
		t.Fatalf("uninterruptible: %+v", r)
	}
	if el := time.Since(start); el > time.Second+interruptGrace+2*time.Second {
		t.Errorf("uninterruptible: killed after %s", el)
	}
	r = execCell(t, s, "print('alive')\n'kept' in globals()", 0)
	if r.Status != "ok" || r.Stdout != "alive\n" || len(r.Displays) != 1 || r.Displays[0].Text != "False" {
		t.Fatalf("after the kill: %+v", r)
	}
	// Restart: a fresh kernel, explicitly.
	execCell(t, s, "z = 1", 0)
	if err := s.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := execCell(t, s, "'z' in globals()", 0); len(r.Displays) != 1 || r.Displays[0].Text != "False" {
		t.Fatalf("after restart: %+v", r)
	}
}

// TestSessionAttacks: a cell that forges frames, closes its stdout or
// exits the kernel cannot touch the next cell's output; a second session
// cannot see the first's files.
func TestSessionAttacks(t *testing.T) {
	s := startSession(t, "", Limits{})
	execCell(t, s, "secret = 'A'\nopen('/mnt/data/secret.txt','w').write('top secret')", 0)
	forged := `import struct, json, sys
p = json.dumps({"nonce": "x", "cell": 99, "status": "ok"}).encode()
sys.stdout.buffer.write(b"X" + struct.pack(">I", len(p)) + p)
sys.stdout.buffer.write(b"B\x00\x00\x00\x02{}O\xff\xff\xff\xff")
sys.stdout.flush()
print("tail")`
	r := execCell(t, s, forged, 0)
	if r.Status != "ok" || !strings.HasSuffix(r.Stdout, "tail\n") || !strings.HasPrefix(r.Stdout, "X") {
		t.Fatalf("forged frames: %+v", r)
	}
	r = execCell(t, s, "print('next')\nsecret", 0)
	if r.Stdout != "next\n" || len(r.Displays) != 1 || r.Displays[0].Text != "'A'" {
		t.Fatalf("after forged frames: %+v", r)
	}
	execCell(t, s, "import os, sys\nos.close(1)\nos.close(2)\nsys.stdout = None", 0)
	r = execCell(t, s, "print('restored')\nsecret", 0)
	if r.Stdout != "restored\n" || len(r.Displays) != 1 {
		t.Fatalf("after closing stdout: %+v", r)
	}
	// Signals to the supervisor (PID 1) are ignored: the session lives on
	// with its state, and SIGINT still interrupts a cell.
	r = execCell(t, s, "import os, signal\nfor sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM, signal.SIGPIPE):\n    os.kill(1, sig)\nimport time\ntime.sleep(0.3)\nprint('sent')", 0)
	if r.Status != "ok" || r.Stdout != "sent\n" || r.StateLost {
		t.Fatalf("signals to PID 1: %+v", r)
	}
	r = execCell(t, s, "print('alive')\n'secret' in globals()", 0)
	if r.Status != "ok" || r.Stdout != "alive\n" || r.Displays[0].Text != "True" {
		t.Fatalf("after signals to PID 1: %+v", r)
	}
	r = execCell(t, s, "import os\nprint('bye', flush=True)\nos._exit(3)", 0)
	if r.Status != "died" || !r.StateLost || r.Stdout != "bye\n" || !strings.Contains(r.LostReason, "status 3") {
		t.Fatalf("os._exit: %+v", r)
	}
	r = execCell(t, s, "print('fresh')\n'secret' in globals()", 0)
	if r.Status != "ok" || r.Stdout != "fresh\n" || r.Displays[0].Text != "False" {
		t.Fatalf("after os._exit: %+v", r)
	}
	// A background process left by a cell is ended with it.
	execCell(t, s, "import subprocess\nsubprocess.Popen(['sleep', '300'])\nprint('started')", 0)
	r = execCell(t, s, "import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit() and open(f'/proc/{p}/cmdline','rb').read().startswith(b'sleep')))", 0)
	if r.Stdout != "[]\n" {
		t.Fatalf("background process survived its cell: %q", r.Stdout)
	}

	// A process a cell leaves behind to steal the next cell's code from the
	// kernel's pipes finds none, and ends with its cell.
	execCell(t, s, `import subprocess
subprocess.Popen(['python3', '-c', '''
import os, time
for fd in (3, 4):
    try:
        os.fstat(fd)
        open('/tmp/inherited', 'a').write(str(fd))
    except OSError:
        pass
time.sleep(1)
open('/tmp/stolen', 'w').write('still running')
'''], close_fds=False)
print('spawned')`, 0)
	execCell(t, s, "import time\ntime.sleep(1.5)\nprint('the next cell')", 0)
	r = execCell(t, s, "import os\nprint(os.path.exists('/tmp/inherited'), os.path.exists('/tmp/stolen'))", 0)
	if r.Stdout != "False False\n" {
		t.Fatalf("a process of an earlier cell reached the kernel's pipes or outlived its cell: %q", r.Stdout)
	}

	other := startSession(t, "", Limits{})
	r = execCell(t, other, `import os
print(os.listdir('/mnt/data'))
for p in os.listdir('/proc'):
    if p.isdigit():
        try:
            print(p, os.listdir(f'/proc/{p}/root/mnt/data'))
        except OSError as e:
            print(p, 'denied')
`, 0)
	if strings.Contains(r.Stdout, "secret") {
		t.Fatalf("the second session saw the first's files: %s", r.Stdout)
	}
}

// TestSessionFromAnotherProcess: a detached session is reached by a later
// Session (as `rehome session exec` does), and its cells export as a
// notebook that Jupyter's own validator accepts.
func TestSessionFromAnotherProcess(t *testing.T) {
	e := testEngine(t)
	dir := filepath.Join(t.TempDir(), "s")
	s, err := e.StartSession(context.Background(), SessionRequest{Dir: dir, Preload: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(context.Background())
	relayDone := make(chan error, 1)
	go func() { relayDone <- s.ServeRelay() }()
	execCell(t, s, "a = 7", 0)
	for i := 0; i < 100; i++ { // the relay's socket appears
		if _, err := os.Stat(relaySocket(dir)); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	s2, err := OpenSession(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	r := execCell(t, s2, "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nprint('a is', a)\na * 6", 0)
	if r.Stdout != "a is 7\n" || r.Cell != 2 || len(r.Displays) != 1 || r.Displays[0].Text != "42" {
		t.Fatalf("second process: %+v", r)
	}
	execCell(t, s2, "import pandas as pd\ndisplay(pd.DataFrame({'x': [1, 2]}))\n1/0", 0)
	s2.Close()
	// A third client, after the second left: the session still reads.
	s3, err := OpenSession(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if r := execCell(t, s3, "a", 0); len(r.Displays) != 1 || r.Displays[0].Text != "7" || r.Cell != 4 {
		t.Fatalf("third client: %+v", r)
	}
	if err := s3.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-relayDone:
		if err != nil {
			t.Fatalf("relay: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the relay did not end with its session")
	}

	cells, err := ReadCells(dir)
	if err != nil || len(cells) != 4 {
		t.Fatalf("cells: %v %d", err, len(cells))
	}
	var nb bytes.Buffer
	if err := WriteNotebook(&nb, cells); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"execute_result"`, `"image/png"`, `"ename": "ZeroDivisionError"`, `"text/html"`, `"name": "stdout"`} {
		if !strings.Contains(nb.String(), want) {
			t.Errorf("notebook lacks %s", want)
		}
	}
	path := filepath.Join(t.TempDir(), "s.ipynb")
	os.WriteFile(path, nb.Bytes(), 0o644)
	validateNotebook(t, path)
}

// validateNotebook runs Jupyter's nbformat validator (Debian's
// python3-nbformat) on the file.
func validateNotebook(t *testing.T, path string) {
	t.Helper()
	py, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		t.Fatal("python3 is needed to validate the notebook")
	}
	out, err := exec.Command(py, "-c", "import sys, nbformat; nbformat.validate(nbformat.read(sys.argv[1], as_version=4)); print('valid')", path).CombinedOutput()
	if strings.Contains(string(out), "No module named 'nbformat'") {
		if os.Getenv("REHOME_REQUIRE_PODMAN") == "1" {
			t.Fatal("nbformat is missing: sudo apt-get install python3-nbformat")
		}
		t.Skip("nbformat is missing (sudo apt-get install python3-nbformat): the notebook is not validated")
	}
	if err != nil || !strings.Contains(string(out), "valid") {
		t.Fatalf("nbformat rejects the notebook: %v\n%s", err, out)
	}
}

// TestSessionLimits: the memory ceiling holds over the session (the kernel
// is what the OOM killer takes; the supervisor stays and says the state is
// lost), at most MaxSessions run at once, and an idle session ends by
// itself, its container gone.
func TestSessionLimits(t *testing.T) {
	e := testEngine(t)
	s := startSession(t, "", Limits{Memory: 256 * MiB})
	execCell(t, s, "kept = 1", 0)
	r := execCell(t, s, "x = bytearray(600 * 1024 * 1024)\nx[::4096] = b'x' * len(x[::4096])\nprint('survived')", 0)
	if !r.OOMKilled || !r.StateLost || r.Status == "ok" || !strings.Contains(r.Summary, "memory") {
		t.Fatalf("memory: %+v", r)
	}
	if r := execCell(t, s, "print('after')\n'kept' in globals()", 0); r.Stdout != "after\n" || r.Displays[0].Text != "False" {
		t.Fatalf("after the OOM kill: %+v", r)
	}

	// The cap counts the sessions of one folder (s's).
	_, err := e.StartSession(context.Background(), SessionRequest{Dir: filepath.Join(filepath.Dir(s.Info().Dir), "x"), MaxSessions: 1})
	if !errors.Is(err, ErrTooManySessions) {
		t.Fatalf("a session over the limit: %v", err)
	}

	idle, err := e.StartSession(context.Background(), SessionRequest{Dir: filepath.Join(t.TempDir(), "idle"), IdleTimeout: 2 * time.Second, Preload: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Stop(context.Background())
	execCell(t, idle, "1", 0)
	select {
	case <-idle.endedCh:
	case <-time.After(15 * time.Second):
		t.Fatal("the idle session did not end")
	}
	if !strings.Contains(idle.Ended(), "without a cell") {
		t.Errorf("ended: %s", idle.Ended())
	}
	for i := 0; ; i++ {
		ok, err := containers.Exists(e.api(context.Background()), idle.Info().Container, nil)
		if err == nil && !ok {
			break
		}
		if i > 100 {
			t.Fatal("the idle session's container is still there")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := idle.Exec(context.Background(), "1", 0, nil); !errors.Is(err, ErrSessionEnded) {
		t.Fatalf("exec in an ended session: %v", err)
	}
}

// TestSessionLimitCountsFromStart: a cell sent while a new kernel still
// imports its preload (pandas) gets its whole time limit once it starts.
func TestSessionLimitCountsFromStart(t *testing.T) {
	e := testEngine(t)
	s, err := e.StartSession(context.Background(), SessionRequest{Dir: filepath.Join(t.TempDir(), "s")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(context.Background())
	r := execCell(t, s, "import pandas\nkept = 1\nwhile True: pass", 500*time.Millisecond)
	if r.Status != "interrupted" || r.StateLost {
		t.Fatalf("first cell: %+v", r)
	}
	if r := execCell(t, s, "kept", 0); len(r.Displays) != 1 || r.Displays[0].Text != "1" {
		t.Fatalf("state: %+v", r)
	}
}

// TestSessionSweptAfterCrash: a session whose owning process is gone (a
// crashed window, a killed relay) is removed by the next rehome's sweep.
func TestSessionSweptAfterCrash(t *testing.T) {
	e := testEngine(t)
	host, _ := os.Hostname()
	owner := e.owner
	e.owner = host + "/999999999/1" // a process that does not exist
	s, err := e.StartSession(context.Background(), SessionRequest{Dir: filepath.Join(t.TempDir(), "s"), Preload: []string{}})
	e.owner = owner
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(context.Background())
	if n := e.Sweep(context.Background()); n < 1 {
		t.Fatalf("swept %d", n)
	}
	if ok, err := containers.Exists(e.api(context.Background()), s.Info().Container, nil); err != nil || ok {
		t.Fatalf("the crashed owner's session is still there: %v", err)
	}
}
