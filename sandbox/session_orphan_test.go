package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSessionOrphanHolder is not a test: run by TestSessionOrphansReaped
// as the process that holds a session (what `rehome session start`'s
// relay is), it starts one in $REHOME_ORPHAN_DIR, says so and waits to be
// killed.
func TestSessionOrphanHolder(t *testing.T) {
	dir := os.Getenv("REHOME_ORPHAN_DIR")
	if dir == "" {
		t.Skip("the helper of TestSessionOrphansReaped")
	}
	e := testEngine(t)
	s, err := e.StartSession(t.Context(), SessionRequest{Dir: dir, MaxSessions: 1, Preload: []string{}})
	if err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		return
	}
	os.Stdout.WriteString("started " + s.ID() + "\n")
	time.Sleep(10 * time.Minute)
}

// A session whose holder was killed with SIGKILL leaves its container
// running; it no longer holds the cap on sessions: the next start reaps
// it (its container is gone) instead of refusing with "at most 1
// sessions are running already".
func TestSessionOrphansReaped(t *testing.T) {
	e := testEngine(t)
	base := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSessionOrphanHolder$", "-test.v")
	cmd.Env = append(os.Environ(), "REHOME_ORPHAN_DIR="+filepath.Join(base, "orphan"))
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(out)
	id := ""
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "started "); ok {
			id = line
			break
		}
		if strings.HasPrefix(sc.Text(), "error ") {
			t.Fatalf("the holder could not start its session: %s", sc.Text())
		}
	}
	if id == "" {
		t.Fatal("the holder said nothing")
	}
	cmd.Process.Kill() // SIGKILL: no cleanup runs
	cmd.Wait()
	s, err := e.StartSession(t.Context(), SessionRequest{Dir: filepath.Join(base, "next"), MaxSessions: 1, Preload: []string{}})
	if err != nil {
		t.Fatalf("the orphan still holds the cap: %v", err)
	}
	defer s.Stop(t.Context())
	running, _ := e.runningSessions(t.Context(), base)
	if _, still := running[id]; still || len(running) != 1 {
		t.Fatalf("the orphan %s is still running: %v", id, running)
	}
}

// Each session of a folder starts afresh (a conversation asked again from
// the terminal starts a new one), and its cells write the same result
// again: 4 sessions × 2 cells, each writing the same 8 MiB file, keep it
// once on disk (one inode), not 8 times; deleting the sessions frees it.
func TestSessionsKeepOneCopyPerContent(t *testing.T) {
	e := testEngine(t)
	base := t.TempDir()
	code := "import random\nrandom.seed(7)\nopen('/mnt/data/result.bin','wb').write(random.randbytes(8<<20))\n"
	inodes := map[uint64]bool{}
	for i := range 4 {
		s, err := e.StartSession(t.Context(), SessionRequest{Dir: filepath.Join(base, NewRunID()), Preload: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			res, err := s.Exec(t.Context(), code, 0, nil)
			if err != nil || len(res.Files) != 1 {
				t.Fatalf("session %d: %+v %v", i, res, err)
			}
			var st syscall.Stat_t
			if err := syscall.Stat(res.Files[0].Path, &st); err != nil {
				t.Fatal(err)
			}
			inodes[st.Ino] = true
		}
		s.Stop(t.Context())
	}
	if len(inodes) != 1 {
		t.Fatalf("the same 8 MiB result is kept %d times (%d MiB), want once", len(inodes), len(inodes)*8)
	}
	ents, _ := os.ReadDir(base)
	for _, ent := range ents {
		if ent.Name() != keptDir {
			os.RemoveAll(filepath.Join(base, ent.Name()))
		}
	}
	if n := sweepKept(base); n != 1 {
		t.Fatalf("the sweep dropped %d links of deleted sessions, want 1", n)
	}
}
