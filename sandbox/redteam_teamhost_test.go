package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containers/podman/v4/pkg/bindings/containers"

	"rehome/internal/testsupport/teamhost"
)

// redTeamSeek is the code of a run that looks for another run's sent
// file on the same team account while that run holds it: through /proc
// (other processes, their roots), /mnt/data and /tmp; it also sends the
// go signal to PID 1 again and tries to replace its own input.
const redTeamSeek = `
import os, signal
found = []
for pid in os.listdir('/proc'):
    if pid.isdigit():
        for p in ('/proc/%s/root/mnt/data' % pid, '/proc/%s/cwd' % pid):
            try:
                for n in os.listdir(p):
                    if 'b-secret' in n: found.append(p + '/' + n)
            except OSError:
                pass
for top in ('/mnt', '/tmp', '/var/tmp', '/dev/shm'):
    for d, _, files in os.walk(top):
        for n in files:
            try:
                if ('MARKER' + '-B') in open(os.path.join(d, n), errors='replace').read(1 << 20): found.append(os.path.join(d, n))
            except OSError:
                pass
print('pids', sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))
print('found', found)
print('data', sorted(os.listdir('/mnt/data')))
os.kill(1, signal.SIGUSR2)
try:
    with open('/mnt/data/a.csv', 'w') as f: f.write('changed')
    print('WROTE the input')
except OSError as e:
    print('write refused', e.errno)
print(open('/mnt/data/a.csv').read().strip())
`

// TestRedTeamTeamHostSentFiles: two runs on one team account at once,
// each sent its own private file. The first's code looks for the
// second's file (by name and by content) everywhere a container could
// reach, forges the go, and tries to overwrite its own input: it finds
// nothing, sees only its own processes and input, cannot write the
// input, and the forged go changes nothing.
func TestRedTeamTeamHostSentFiles(t *testing.T) {
	e, _ := teamEngine(t, teamhost.User)
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	a := filepath.Join(dir, "a.csv")
	b := filepath.Join(dir, "b-secret.csv")
	os.WriteFile(a, []byte("x,v\nMARKER-A,1\n"), 0o600)
	os.WriteFile(b, []byte("x,v\nMARKER-B,2\n"), 0o600)
	var wg sync.WaitGroup
	wg.Add(1)
	var bRes *Result
	var bErr error
	go func() {
		defer wg.Done()
		bRes, bErr = e.Run(t.Context(), RunRequest{Code: "import time\nprint(open('/mnt/data/b-secret.csv').read().count('MARKER-B'))\ntime.sleep(20)", InputPath: b, Limits: Limits{Timeout: 60 * time.Second}}, nil)
	}()
	time.Sleep(8 * time.Second) // b is sent and holding its file
	res, err := e.Run(t.Context(), RunRequest{Code: redTeamSeek, InputPath: a, Limits: Limits{Timeout: 60 * time.Second}}, nil)
	wg.Wait()
	if bErr != nil || bRes.ExitCode != 0 || !strings.Contains(bRes.Stdout, "1") {
		t.Fatalf("the other run: %v %+v", bErr, bRes)
	}
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("the seeking run: %v %+v", err, res)
	}
	t.Logf("seeking run: %s", res.Stdout)
	for _, want := range []string{"found []", "data ['a.csv']", "write refused", "MARKER-A,1"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("the seeking run's code did not print %q:\n%s%s", want, res.Stdout, res.Stderr)
		}
	}
	if strings.Contains(res.Stdout, "WROTE") || strings.Contains(res.Stdout, "MARKER-B") {
		t.Errorf("the code reached another run's file or changed its own:\n%s", res.Stdout)
	}
	if data, _ := os.ReadFile(a); string(data) != "x,v\nMARKER-A,1\n" {
		t.Errorf("the host's file changed: %q", data)
	}
}

// TestRedTeamTeamHostDiesMidSend: the container dies while a big input
// is still being sent to it (killed on the team host: its memory, its
// admin, a crash). rehome does not hang in the send: the run ends with
// an error in words well within the send's own limit, and leaves no
// container on the service.
func TestRedTeamTeamHostDiesMidSend(t *testing.T) {
	e, h := teamEngine(t, teamhost.User)
	// A name of this test's own: the scan looks for copies of it in
	// shared folders, where another program's big.bin must not count.
	name := fmt.Sprintf("big-%d-%d.bin", os.Getpid(), time.Now().UnixNano())
	in := filepath.Join(t.TempDir(), name)
	scan := func() []string {
		var found []string
		for _, root := range []string{h.Home, "/tmp", "/var/tmp", h.RuntimeDir} {
			filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && d.Name() == name && !strings.HasPrefix(p, filepath.Dir(in)) {
					found = append(found, p)
				}
				return nil
			})
		}
		return found
	}
	var during []string
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(400 * MiB)
	f.Close()
	api := e.api(t.Context())
	killed := make(chan time.Time, 1)
	var once sync.Once
	start := time.Now()
	_, err = e.Run(t.Context(), RunRequest{Code: "print('ran')", InputPath: in, Limits: Limits{Timeout: 60 * time.Second}}, func(p Progress) {
		if p.Stage != "sending" {
			return
		}
		once.Do(func() {
			list, lerr := containers.List(api, new(containers.ListOptions).WithFilters(map[string][]string{"label": {labelRun}}))
			if lerr != nil {
				t.Errorf("list: %v", lerr)
				return
			}
			for _, c := range list {
				if c.State == "running" {
					containers.Kill(api, c.ID, new(containers.KillOptions).WithSignal("KILL"))
				}
			}
			killed <- time.Now()
			time.Sleep(time.Second)
			during = scan()
		})
	})
	end := time.Now()
	if err == nil {
		t.Fatal("a run whose container was killed mid-send succeeded")
	}
	select {
	case k := <-killed:
		t.Logf("killed %.1fs after the start; the run ended %.1fs after the kill: %v", k.Sub(start).Seconds(), end.Sub(k).Seconds(), err)
		if end.Sub(k) > 30*time.Second {
			t.Errorf("the run took %s to end after its container died mid-send", end.Sub(k))
		}
	default:
		t.Fatalf("the send never said it was sending (%s): %v", end.Sub(start), err)
	}
	for _, words := range []string{"ended while its files were being sent", name} {
		if !strings.Contains(err.Error(), words) {
			t.Errorf("the error does not say %q: %v", words, err)
		}
	}
	if len(during) > 0 {
		t.Errorf("after the kill, the input on the team host's disk: %v", during)
	}
	if after := scan(); len(after) > 0 {
		t.Errorf("after the run, the input on the team host's disk: %v", after)
	}
	time.Sleep(time.Second)
	list, _ := containers.List(api, new(containers.ListOptions).WithAll(true).WithFilters(map[string][]string{"label": {labelRun}}))
	for _, c := range list {
		if time.Unix(c.Created.Unix(), 0).After(start.Add(-time.Second)) {
			t.Errorf("a container was left: %s %s", c.ID[:12], c.State)
		}
	}
}

// TestRedTeamTeamHostInputChangesWhileSent: the host's file grows while
// it is being sent (a process of the user's appending to it, or one
// racing the check): the code gets exactly the bytes checked, no more;
// one that shrinks while sent fails the run in words.
func TestRedTeamTeamHostInputChangesWhileSent(t *testing.T) {
	e, _ := teamEngine(t, teamhost.User)
	for _, grow := range []bool{true, false} {
		in := filepath.Join(t.TempDir(), "live.csv")
		f, err := os.Create(in)
		if err != nil {
			t.Fatal(err)
		}
		f.Truncate(400 * MiB)
		f.Close()
		var once sync.Once
		res, err := e.Run(t.Context(), RunRequest{Code: "import os\nprint('size', os.path.getsize('/mnt/data/live.csv'))", InputPath: in, Limits: Limits{Timeout: 60 * time.Second}}, func(p Progress) {
			if p.Stage == "sending" && strings.HasPrefix(p.Message, "sending ") {
				once.Do(func() {
					if grow {
						f, _ := os.OpenFile(in, os.O_APPEND|os.O_WRONLY, 0)
						f.Write(make([]byte, 8*MiB))
						f.Close()
					} else {
						os.Truncate(in, 1*MiB)
					}
				})
			}
		})
		if grow {
			if err != nil || !strings.Contains(res.Stdout, fmt.Sprintf("size %d", 400*MiB)) {
				t.Errorf("grown while sent: %v %+v", err, res)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "shrank while it was sent") {
			t.Errorf("shrunk while sent: %v %+v", err, res)
		}
	}
}

// TestRedTeamTeamHostOutputsPrivate: a run's outputs come back to this
// machine's output folder; neither team account (the one that ran it,
// nor the other) reads them there, even in a folder others may list.
func TestRedTeamTeamHostOutputsPrivate(t *testing.T) {
	e, h1 := teamEngine(t, teamhost.User)
	h2 := teamhost.Ensure(t, teamhost.User2)
	out := filepath.Join(t.TempDir(), "out")
	os.MkdirAll(out, 0o755)
	for d := out; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o755) // the test's own folders: others may pass
	}
	control := filepath.Join(out, "control.txt")
	os.WriteFile(control, []byte("readable by all"), 0o644)
	os.Chmod(control, 0o644)
	if !h2.CanRead(control) {
		t.Fatalf("%s cannot read a 0644 file in %s: the check below could not fail", h2.User, out)
	}
	res, err := e.Run(t.Context(), RunRequest{Code: "open('/mnt/data/result.txt', 'w').write('PAYROLL-TOTAL 42')", OutputDir: out, Limits: Limits{Timeout: 60 * time.Second}}, nil)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run: %v %+v", err, res)
	}
	p := filepath.Join(out, "result.txt")
	if data, err := os.ReadFile(p); err != nil || string(data) != "PAYROLL-TOTAL 42" {
		t.Fatalf("the output did not come back: %q %v", data, err)
	}
	for _, h := range []*teamhost.Host{h1, h2} {
		if h.CanRead(p) {
			t.Errorf("%s reads the run's output %s", h.User, p)
		}
	}
}
