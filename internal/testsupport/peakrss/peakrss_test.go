package peakrss

import (
	"os/exec"
	"testing"
)

// A test process that has grown to 300 MiB runs a small command and a
// 100 MiB one: Wrap reports each command's own peak, where Rusage.Maxrss
// reports 300 MiB for both.
func TestWrapIsTheCommandsOwnPeak(t *testing.T) {
	ballast := make([]byte, 300<<20)
	for i := range ballast {
		ballast[i] = byte(i)
	}
	run := func(name string, args ...string) int64 {
		cmd := exec.Command(name, args...)
		peak, err := Wrap(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
		}
		rss, err := peak()
		if err != nil {
			t.Fatal(err)
		}
		return rss
	}
	if rss := run("true"); rss > 32<<20 {
		t.Errorf("true peaked at %d MiB: the test process's memory was counted", rss>>20)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatalf("python3 (build/setup.sh test installs it): %v", err)
	}
	if rss := run("python3", "-c", "b = bytearray(100 << 20)"); rss < 100<<20 || rss > 200<<20 {
		t.Errorf("a 100 MiB python peaked at %d MiB, want 100 to 200", rss>>20)
	}
	_ = ballast[len(ballast)-1]
}
