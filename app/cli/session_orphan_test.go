package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// relayOf finds the pid of the relay `rehome session start` left holding
// session id (its command line names the id), 0 if none.
func relayOf(id string) int {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := bytes.Split(b, []byte{0})
		if len(args) > 4 && bytes.Equal(args[1], []byte("session")) && bytes.Equal(args[2], []byte("relay")) && bytes.Contains(b, []byte("\x00"+id+"\x00")) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			return pid
		}
	}
	return 0
}

// The terminal's path: a session's relay killed with SIGKILL leaves its
// container running; `rehome session list` no longer counts it as running
// (the orphan is reaped), so it holds no place under the cap.
func TestSessionRelayKilledCLI(t *testing.T) {
	needPodmanCLI(t)
	home := t.TempDir()
	dir := t.TempDir()
	csv := filepath.Join(dir, "d.csv")
	os.WriteFile(csv, []byte("a\n1\n"), 0o644)
	r := rehomeCLI(t, home, "session", "start", "--file", csv, "--idle", "5m")
	if r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	id := strings.TrimSpace(r.stdout)
	t.Cleanup(func() { rehomeCLI(t, home, "session", "stop", id) })
	pid := relayOf(id)
	if pid == 0 {
		t.Fatalf("no relay holds session %s", id)
	}
	if r = rehomeCLI(t, home, "session", "list"); !strings.Contains(r.stdout, "running") {
		t.Fatalf("list before the kill: %+v", r)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	for i := 0; i < 50 && syscall.Kill(pid, 0) == nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	r = rehomeCLI(t, home, "session", "list")
	if r.code != 0 || !strings.Contains(r.stdout, id) || strings.Contains(r.stdout, "running") {
		t.Fatalf("after the relay was killed the session still counts as running: %+v", r)
	}
}
