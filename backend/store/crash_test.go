package store

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashRecord is what the crash children write. Its body varies in size so
// that pages split and the freelist churns.
type crashRecord struct {
	Schema int    `json:"schema"`
	ID     string `json:"id"`
	Seq    int    `json:"seq"`
	Body   string `json:"body"`
}

// crashChild is the body of a writer child: it writes records as fast as
// it can and prints "ack <id> <seq>" only after each Put has returned,
// i.e. after bbolt has committed and fsynced it. It also bumps a counter
// record, printing "counter <n>" once that write is acknowledged.
func crashChild() {
	s, err := Open(os.Getenv("REHOME_CRASH_DB"), Options{Timeout: 10 * time.Second})
	if err != nil {
		fmt.Println("open-error", err)
		os.Exit(2)
	}
	var c crashRecord
	if err := s.Get(Settings, "counter", &c); err != nil && !errors.Is(err, ErrNotFound) {
		fmt.Println("read-error", err)
		os.Exit(2)
	}
	out := os.Stdout // unbuffered: each line is one write(2), atomic on a pipe
	for i := 0; ; i++ {
		id := NewID()
		r := crashRecord{Schema: 1, ID: id, Seq: i, Body: strings.Repeat("z", rand.IntN(6000))}
		if err := s.Put(Runs, id, r); err != nil {
			fmt.Println("put-error", err)
			os.Exit(2)
		}
		fmt.Fprintf(out, "ack %s %d\n", id, len(r.Body))
		if i%3 == 0 {
			c.Seq++
			if err := s.Put(Settings, "counter", c); err != nil {
				fmt.Println("put-error", err)
				os.Exit(2)
			}
			fmt.Fprintf(out, "counter %d\n", c.Seq)
		}
		if i%7 == 6 {
			// Deletes churn the freelist too. The id is announced before
			// the delete, so the parent stops expecting it from then on.
			var victim string
			s.Each(Runs, func(id string, raw []byte) (bool, error) { victim = id; return false, nil })
			fmt.Fprintf(out, "deleting %s\n", victim)
			if err := s.Delete(Runs, victim); err != nil {
				fmt.Println("delete-error", err)
				os.Exit(2)
			}
		}
	}
}

// TestCrashKeepsAcknowledgedWrites runs writer children, kills each with
// SIGKILL at a random moment, and then checks that every acknowledged
// write is in the file and that bbolt's check finds nothing. The number of
// kills is REHOME_CRASH_KILLS (default 300).
//
// What it proves, precisely: a process killed at any point of a write
// (mid-transaction, mid-commit, between the data and the meta page) leaves
// a file that opens, passes bbolt's consistency check, and holds every
// write Put returned for — that is, rehome acknowledges only committed
// transactions and bbolt's two-meta-page commit recovers from a torn
// write. What it cannot prove: durability across a power cut or a kernel
// crash. SIGKILL leaves the page cache to the kernel, which writes it out
// later either way, so a missing or broken fsync would pass this test
// too; that needs the machine itself to stop (a VM reset or dm-flakey),
// which no test here does. Durability rests on bbolt's fdatasync at each
// commit (Open never sets NoSync or NoFreelistSync).
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
	if os.Getenv("REHOME_CRASH_CHILD") != "" {
		crashChild()
		return
	}
	kills := 300
	if v, err := strconv.Atoi(os.Getenv("REHOME_CRASH_KILLS")); err == nil && v > 0 {
		kills = v
	}
	if testing.Short() {
		kills = 20
	}
	path := filepath.Join(t.TempDir(), FileName)
	acked := map[string]int{} // id -> body length
	lastCounter := 0
	killedMidWrite := 0
	deleted := 0
	for k := 0; k < kills; k++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashKeepsAcknowledgedWrites$")
		cmd.Env = append(os.Environ(), "REHOME_CRASH_CHILD=1", "REHOME_CRASH_DB="+path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Wait for the child to be writing, then kill it at a random moment.
		first, ok := <-lines
		if !ok {
			t.Fatalf("kill %d: child died before writing", k)
		}
		time.Sleep(time.Duration(rand.IntN(25000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		n := 0
		for _, l := range append([]string{first}, drainAll(lines)...) {
			f := strings.Fields(l)
			switch {
			case len(f) == 3 && f[0] == "ack":
				size, _ := strconv.Atoi(f[2])
				acked[f[1]] = size
				n++
			case len(f) == 2 && f[0] == "deleting":
				delete(acked, f[1])
				deleted++
			case len(f) == 2 && f[0] == "counter":
				c, _ := strconv.Atoi(f[1])
				if c < lastCounter {
					t.Fatalf("kill %d: acknowledged counter went back from %d to %d", k, lastCounter, c)
				}
				lastCounter = c
			case len(f) > 0 && strings.HasSuffix(f[0], "-error"):
				t.Fatalf("kill %d: child reported %s", k, l)
			}
		}
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("kill %d: child ended with %v, not by SIGKILL", k, err)
		}
		if n > 0 {
			killedMidWrite++
		}
	}
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("reopen after %d kills: %v", kills, err)
	}
	defer s.Close()
	problems, err := s.Check()
	if err != nil || len(problems) > 0 {
		t.Fatalf("bbolt check after %d kills: %v %v", kills, problems, err)
	}
	for id, size := range acked {
		var r crashRecord
		if err := s.Get(Runs, id, &r); err != nil {
			t.Fatalf("acknowledged write %s lost: %v", id, err)
		}
		if len(r.Body) != size {
			t.Fatalf("acknowledged write %s has %d bytes, acked %d", id, len(r.Body), size)
		}
	}
	var c crashRecord
	if err := s.Get(Settings, "counter", &c); err != nil && lastCounter > 0 {
		t.Fatalf("counter lost: %v", err)
	}
	// The last counter write may have committed without its ack printed.
	if c.Seq != lastCounter && c.Seq != lastCounter+1 {
		t.Fatalf("counter is %d, last acknowledged %d", c.Seq, lastCounter)
	}
	total, _ := s.Count(Runs)
	t.Logf("%d SIGKILLs (%d after at least one acknowledged write), %d acknowledged writes all present, %d deletes, %d records in the file, counter %d, check clean",
		kills, killedMidWrite, len(acked), deleted, total, c.Seq)
}

func drainAll(c chan string) []string {
	var out []string
	for l := range c {
		out = append(out, l)
	}
	return out
}
