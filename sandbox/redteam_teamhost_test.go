package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
