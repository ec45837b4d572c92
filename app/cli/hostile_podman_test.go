package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/internal/testsupport/hostilepodman"
	"rehome/internal/testsupport/peakrss"
	"rehome/internal/testsupport/sshdtest"
)

// peakRSS runs the binary with REHOME_HOME=home and returns its output
// and its peak resident memory in bytes (its own: see package peakrss).
func peakRSS(t *testing.T, home string, limit time.Duration, args ...string) (cliResult, int64) {
	t.Helper()
	return peakRSSEnv(t, home, nil, limit, args...)
}

// peakRSSEnv is peakRSS with extra variables (HOME=…) for the binary.
func peakRSSEnv(t *testing.T, home string, extra []string, limit time.Duration, args ...string) (cliResult, int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, rehomeBin, args...)
	cmd.Env = append(append(os.Environ(), "REHOME_HOME="+home, "CONTAINER_HOST="), extra...)
	var out, errb limitedBuf
	cmd.Stdout, cmd.Stderr = &out, &errb
	peak, err := peakrss.Wrap(cmd)
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("rehome %v: %v", args, err)
	}
	if ctx.Err() != nil {
		t.Errorf("rehome %v still ran after %s: its answers are not bounded in time", args, limit)
	}
	rss, err := peak()
	if err != nil {
		t.Fatalf("rehome %v: its peak memory: %v", args, err)
	}
	return cliResult{stdout: out.String(), stderr: errb.String(), code: code}, rss
}

// limitedBuf keeps the first 64 KiB written to it.
type limitedBuf struct{ b []byte }

func (l *limitedBuf) Write(p []byte) (int, error) {
	if room := 64<<10 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
func (l *limitedBuf) String() string { return string(l.b) }

// A hostile Podman service (a team host is someone else's machine) that
// answers /libpod/info, and every other call, with 1.5 GB of JSON, or an
// error of 1.5 GB: `rehome sandbox doctor` and `rehome run` stay under
// 256 MiB and end, saying what the service did. On 1c9eba1 the info flood
// took doctor to 6.9 GB.
func TestHostilePodmanServiceIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: floods 1.5 GB through a socket")
	}
	const size = 1500 << 20
	const bound = 256 << 20
	for _, mode := range []hostilepodman.Mode{hostilepodman.Flood, hostilepodman.ErrorFlood} {
		t.Run(string(mode), func(t *testing.T) {
			srv, err := hostilepodman.Start(hostilepodman.Dir(t), mode, size)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			home := t.TempDir()
			script := filepath.Join(home, "s.py")
			os.WriteFile(script, []byte("print(1)\n"), 0o600)
			data := filepath.Join(home, "d.csv")
			os.WriteFile(data, []byte("a,b\n1,2\n"), 0o600)
			for _, args := range [][]string{
				{"sandbox", "doctor", "--podman", srv.URI},
				{"run", "--podman", srv.URI, "--file", data, script},
			} {
				res, rss := peakRSS(t, home, 2*time.Minute, args...)
				t.Logf("%s: rehome %s %s: peak RSS %d MiB, exit %d, service sent %d MiB", mode, args[0], args[1], rss>>20, res.code, srv.Sent.Load()>>20)
				if rss > bound {
					t.Errorf("rehome %v peaked at %d MiB against a hostile service (bound 256 MiB)", args, rss>>20)
				}
				if res.code == 0 || res.code == 2 {
					t.Errorf("rehome %v: exit %d against a hostile service\n%s%s", args, res.code, res.stdout, res.stderr)
				}
			}
		})
	}
}

// The same hostile service reached as a team host: a real sshd on
// 127.0.0.1 (a known host, the test's own key) forwarding
// ssh://root@127.0.0.1:PORT/…/podman.sock to it, as rehome reaches every
// team host. `sandbox doctor` and `run` over the link stay under 256 MiB
// and end with a message in words — for a 1.5 GB answer, a 1.5 GB error,
// an answer that trickles a byte a second for ever, and a description of
// fields of 1 MiB each with terminal escapes (none reaches the terminal). On 1c9eba1 the
// info flood took doctor to 8.1 GB over SSH.
func TestHostilePodmanServiceOverSSHIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: floods 1.5 GB through an ssh link")
	}
	const size = 1500 << 20
	const bound = 256 << 20
	srv := sshdtest.Start(t, sshdtest.Options{})
	for _, mode := range []hostilepodman.Mode{hostilepodman.Flood, hostilepodman.ErrorFlood, hostilepodman.Trickle, hostilepodman.Liar} {
		t.Run(string(mode), func(t *testing.T) {
			n := int64(size)
			if mode == hostilepodman.Liar {
				n = 1 << 20 // each field of its description, escapes among them
			}
			hp, err := hostilepodman.Start(hostilepodman.Dir(t), mode, n)
			if err != nil {
				t.Fatal(err)
			}
			defer hp.Close()
			uri := srv.URI(strings.TrimPrefix(hp.URI, "unix://"))
			home := t.TempDir()
			sshDir := filepath.Join(home, ".ssh")
			os.Mkdir(sshDir, 0o700)
			os.WriteFile(filepath.Join(sshDir, "known_hosts"), []byte(srv.HostKeyLine+"\n"), 0o600)
			env := []string{"HOME=" + home, "SSH_AUTH_SOCK=", "CONTAINER_SSHKEY="}
			script := filepath.Join(home, "s.py")
			os.WriteFile(script, []byte("print(1)\n"), 0o600)
			data := filepath.Join(home, "d.csv")
			os.WriteFile(data, []byte("a,b\n1,2\n"), 0o600)
			for _, args := range [][]string{
				{"sandbox", "doctor", "--podman", uri, "--identity", srv.ClientKey},
				{"run", "--podman", uri, "--identity", srv.ClientKey, "--file", data, script},
			} {
				before := hp.Sent.Load()
				start := time.Now()
				res, rss := peakRSSEnv(t, home, env, 4*time.Minute, args...)
				t.Logf("%s over ssh: rehome %s %s: peak RSS %d MiB, exit %d after %s, service sent %d MiB; said: %s", mode, args[0], args[1], rss>>20, res.code, time.Since(start).Round(time.Second), (hp.Sent.Load()-before)>>20, lastLine(res.stderr+res.stdout))
				if rss > bound {
					t.Errorf("rehome %v peaked at %d MiB against a hostile team host (bound 256 MiB)", args, rss>>20)
				}
				if res.code == 0 || res.code == 2 {
					t.Errorf("rehome %v: exit %d against a hostile team host\n%s%s", args, res.code, res.stdout, res.stderr)
				}
				if words := res.stderr + res.stdout; strings.ContainsAny(words, "\x1b\x07") || len(words) > 64<<10-1 {
					t.Errorf("rehome %v wrote the service's escapes or %d bytes of its words to the terminal", args, len(words))
				}
				if words := res.stderr + res.stdout; strings.Contains(words, "goroutine ") || strings.Contains(words, "panic:") || len(lastLine(words)) < 20 {
					t.Errorf("rehome %v did not end with a message in words:\n%s", args, words)
				}
			}
		})
	}
}

// lastLine is the last non-empty line of s, cut to 300 bytes.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := lines[len(lines)-1]
	return l[:min(len(l), 300)]
}
