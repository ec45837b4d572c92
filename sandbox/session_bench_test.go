package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"rehome/backend/bytesize"
)

// benchFirstCell is the first cell after a drop in the benchmark: the same
// text runs in a session and by python3 in a running container.
const benchFirstCell = `import pandas as pd
df = pd.read_csv('/mnt/data/data.csv')
print(df.describe())
`

// BenchmarkSessions measures sessions through the Go API the UI calls
// (Session.Exec), against baselines measured in the same run, and prints
// one table:
//
//   - a warm cell print(1): p50 and p99 (targets: under 20 ms and 50 ms),
//     against a one-shot Run of print(1);
//
//   - the first cell after a drop (pd.read_csv + describe() of a 10 MB
//     CSV), the session started at the drop and the cell sent when the
//     preview would show, against the same code by python3 in an already
//     running container, timed inside it (target: at most 1.1×).
//
//     go test -tags '…' -run '^$' -bench Sessions -benchtime 1x ./sandbox/
//
// REHOME_BENCH_CELLS sets the warm cells (default 300), REHOME_BENCH_ROUNDS
// the first-cell rounds (default 3).
func BenchmarkSessions(b *testing.B) {
	e := benchEngine(b)
	if _, err := e.Runtime(context.Background()); err != nil {
		b.Skipf("no runtime: %v", err)
	}
	ncells, rounds := 300, 3
	if v, err := strconv.Atoi(os.Getenv("REHOME_BENCH_CELLS")); err == nil && v > 0 {
		ncells = v
	}
	if v, err := strconv.Atoi(os.Getenv("REHOME_BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	ctx := context.Background()
	dir := b.TempDir()
	os.Chmod(dir, 0o755)
	csv := filepath.Join(dir, "data.csv")
	size := writeBenchCSV(b, csv, 10<<20)
	var table strings.Builder

	// Warm cells.
	s, err := e.StartSession(ctx, SessionRequest{Dir: filepath.Join(dir, "warm"), Preload: []string{}})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if _, err := s.Exec(ctx, "print(1)", 0, nil); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, ncells)
	for i := 0; i < ncells; i++ {
		t0 := time.Now()
		r, err := s.Exec(ctx, "print(1)", 0, nil)
		lat = append(lat, time.Since(t0))
		if err != nil || r.Stdout != "1\n" {
			b.Fatalf("warm cell: %v %+v", err, r)
		}
	}
	s.Stop(ctx)
	var oneShot []time.Duration
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		r, err := e.Run(ctx, RunRequest{Code: "print(1)"}, nil)
		oneShot = append(oneShot, time.Since(t0))
		if err != nil || r.ExitCode != 0 {
			b.Fatalf("one-shot: %v", err)
		}
	}
	p50, p99 := percentile(lat, 50), percentile(lat, 99)
	fmt.Fprintf(&table, "%-58s %10s %10s %10s\n", "measure", "value", "target", "baseline")
	fmt.Fprintf(&table, "%-58s %10s %10s %10s   baseline: one-shot Run of print(1), median of %d\n", fmt.Sprintf("warm cell print(1), p50 of %d", ncells), ms(p50), "< 20ms", ms(median(oneShot)), len(oneShot))
	fmt.Fprintf(&table, "%-58s %10s %10s %10s\n", fmt.Sprintf("warm cell print(1), p99 of %d", ncells), ms(p99), "< 50ms", "")

	// The first cell after a drop, against python3 in a running container.
	var first, firstNow, base []time.Duration
	host, err := e.StartSession(ctx, SessionRequest{Dir: filepath.Join(dir, "host"), InputPath: csv, Preload: []string{}})
	if err != nil {
		b.Fatal(err)
	}
	defer host.Stop(ctx)
	for i := 0; i < rounds; i++ {
		// Baseline: python3 started in the running container, timed there.
		out, err := exec.Command("podman", "exec", host.Info().Container, "sh", "-c",
			`t0=$(date +%s%N); python3 -c "$1" >/dev/null; t1=$(date +%s%N); echo $((t1-t0))`, "sh", benchFirstCell).CombinedOutput()
		ns, perr := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
		if err != nil || perr != nil {
			b.Fatalf("baseline: %v %s", err, out)
		}
		base = append(base, time.Duration(ns))

		for _, pause := range []time.Duration{0, 2 * time.Second} {
			s, err := e.StartSession(ctx, SessionRequest{Dir: filepath.Join(dir, fmt.Sprintf("first-%d-%d", i, pause/time.Second)), InputPath: csv})
			if err != nil {
				b.Fatal(err)
			}
			time.Sleep(pause) // the user reads the preview
			t0 := time.Now()
			r, err := s.Exec(ctx, benchFirstCell, 0, nil)
			el := time.Since(t0)
			s.Stop(ctx)
			if err != nil || r.Status != "ok" || !strings.Contains(r.Stdout, "revenue") {
				b.Fatalf("first cell: %v %+v", err, r)
			}
			if pause == 0 {
				firstNow = append(firstNow, el)
			} else {
				first = append(first, el)
			}
		}
	}
	mb, mf, mn := median(base), median(first), median(firstNow)
	fmt.Fprintf(&table, "%-58s %10s %10s %10s   ratio %.2f× (baseline: python3 in a running container, timed inside it)\n",
		fmt.Sprintf("first cell, %s CSV, sent 2s after the drop", bytesize.Format(size)), ms(mf), "≤ 1.1×", ms(mb), float64(mf)/float64(mb))
	fmt.Fprintf(&table, "%-58s %10s %10s %10s   ratio %.2f× (the kernel may still be importing pandas)\n",
		"first cell, sent the moment the session is up", ms(mn), "", ms(mb), float64(mn)/float64(mb))
	fmt.Fprintf(&table, "(%d rounds of the first cell, medians; podman %s, rootless=%t)\n", rounds, e.Host().PodmanVersion, e.Host().Rootless)
	fmt.Print(table.String())
}

func percentile(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(0, min(len(s)-1, i-1))]
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
}
