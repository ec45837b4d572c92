package cli

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"rehome/internal/testsupport/peakrss"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rehome/internal/testsupport/llmtest"
)

// What `rehome ask` may use against a hostile model server, whatever it
// sends: the bounds of docs/models.md (2 MiB kept of an answer, 2 MiB of
// one event, a 4 MiB conversation) with room for the Go runtime, above
// what the same binary takes for a short answer.
const (
	hostileExtraRSS = 48 << 20 // peak resident memory over the short answer's
	hostileDBSize   = 16 << 20 // the database file after the question
	hostileWall     = 20 * time.Second
	hostileKillRSS  = 1536 << 20 // the test stops a process past this (an unbounded build)
)

// A hostile model server — endless deltas, one 300 MB line, a 100 MB tool
// call, endless thinking, endless comments, ": ping" forever, a slow
// trickle — cannot grow the real `rehome ask` process or its database
// without bound, nor keep it waiting: each ends within the answer time
// limit with what came cut at its bound and said so.
func TestAskHostileServerBounded(t *testing.T) {
	// The baseline: the same binary reading a short recorded answer (a
	// window build links GTK and takes more than a CLI build).
	base := peakOf(t, recordedOllama(t, "drop").URL, "gemma2:2b")
	t.Logf("a short answer: peak RSS %d MiB", base>>20)
	for _, mode := range llmtest.HostileModes {
		t.Run(mode, func(t *testing.T) {
			home := t.TempDir()
			srv := llmtest.Hostile(t, mode, 50*time.Millisecond)
			cmd := exec.Command(rehomeBin, "ask", "--server", srv.URL+"/v1", "--model", llmtest.HostileModel, "--answer-timeout", "3s", "a question")
			cmd.Env = append(cleanEnv(), "REHOME_HOME="+home)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &limitedBuffer{b: &out, max: 4 << 20}, &errb
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			hwm, killed := watchRSS(cmd.Process.Pid, start)
			err := cmd.Wait()
			took := time.Since(start)
			// hwm is the kernel's VmHWM of the command's own memory; its
			// Rusage.Maxrss would hold this test process's peak too (see
			// package peakrss).
			db := int64(0)
			filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
				if err == nil && strings.HasSuffix(p, ".db") {
					db += fi.Size()
				}
				return nil
			})
			t.Logf("%s: peak RSS %d MiB, database %.1f MiB, %s, exit %v %s; stderr: %.300s", mode, hwm>>20, float64(db)/(1<<20), took.Round(100*time.Millisecond), err, killed, strings.TrimSpace(errb.String()))
			if killed != "" {
				t.Fatalf("rehome ask had to be stopped: %s", killed)
			}
			if hwm > base+hostileExtraRSS {
				t.Errorf("peak RSS %d MiB, over the short answer's %d MiB + %d MiB", hwm>>20, base>>20, hostileExtraRSS>>20)
			}
			if db > hostileDBSize {
				t.Errorf("database %d MiB, over %d MiB", db>>20, hostileDBSize>>20)
			}
			if out.Len() > 2<<20 {
				t.Errorf("printed %d bytes of answer", out.Len())
			}
			want := "rehome cut the answer there"
			if mode == llmtest.HostilePing || mode == llmtest.HostileTrickle {
				want = "rehome stopped waiting"
			}
			if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(errb.String(), want) {
				t.Errorf("exit %d, stderr %q: want exit 1 saying %q", cmd.ProcessState.ExitCode(), errb.String(), want)
			}
		})
	}
}

// peakOf is the peak RSS of `rehome ask` against the server at url.
func peakOf(t *testing.T, url, model string) int64 {
	t.Helper()
	cmd := exec.Command(rehomeBin, "ask", "--server", url, "--model", model, "a question")
	cmd.Env = append(cleanEnv(), "REHOME_HOME="+t.TempDir())
	peak, err := peakrss.Wrap(cmd)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Run()
	rss, err := peak()
	if err != nil || rss == 0 {
		t.Fatalf("no peak RSS for the short answer: %v", err)
	}
	return rss
}

// watchRSS polls the process's peak resident memory (VmHWM) until it
// exits, and kills it past hostileKillRSS or hostileWall, saying why.
func watchRSS(pid int, start time.Time) (hwm int64, killed string) {
	for {
		f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
		if err != nil {
			return hwm, killed
		}
		var rss int64
		sc := bufio.NewScanner(f)
		zombie := false
		for sc.Scan() {
			k, v, _ := strings.Cut(sc.Text(), ":")
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			switch k {
			case "VmHWM":
				hwm = max(hwm, n<<10)
			case "VmRSS":
				rss = n << 10
			case "State":
				zombie = strings.HasPrefix(strings.TrimSpace(v), "Z")
			}
		}
		f.Close()
		if zombie {
			return hwm, killed
		}
		if killed == "" && rss > hostileKillRSS {
			killed = "resident memory passed " + strconv.Itoa(hostileKillRSS>>20) + " MiB"
			syscall.Kill(pid, syscall.SIGKILL)
		}
		if killed == "" && time.Since(start) > hostileWall {
			killed = "still running after " + hostileWall.String()
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// limitedBuffer keeps the first max bytes written and drops the rest.
type limitedBuffer struct {
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
