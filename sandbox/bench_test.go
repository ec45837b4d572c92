package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"rehome/backend/bytesize"
	"rehome/internal/testsupport/rehomebin"
)

// benchPlot is the plot script of the benchmark: the same text runs in
// rehome and in a bare `podman run --rm`. Its first line gives matplotlib
// the image's prebuilt font cache in a writable place, as rehome's runner
// does, so that neither side pays for building it.
const benchPlot = `import os, shutil
shutil.copytree('/opt/rehome/mpl', '/tmp/mpl', dirs_exist_ok=True); os.environ['MPLCONFIGDIR'] = '/tmp/mpl'; os.environ['MPLBACKEND'] = 'Agg'
import pandas as pd, matplotlib.pyplot as plt
df = pd.read_csv('/mnt/data/data.csv')
ax = df.groupby('region')['revenue'].mean().plot(kind='bar')
plt.savefig('plot.png')
print(len(df), 'rows')
`

// BenchmarkVersusBarePodman measures, side by side in one run, rehome
// against a bare `podman run --rm` of the same image with the same script:
// a plot of a 100 MB CSV, and print(1). Rounds alternate between the
// contenders so that drift of the machine hits all alike; the table gives
// medians. Targets: rehome ≤ 1.2× bare for the plot, and the command
// `rehome run` ≤ 1.0× bare for print(1) (a terminal command pays no more
// than `podman run` itself: see docs/bench.md).
//
//	go test -tags '…' -run '^$' -bench VersusBarePodman -benchtime 1x ./sandbox/
//
// REHOME_BENCH_ROUNDS sets the rounds (default 5); REHOME_BENCH_ONLY=print
// (or plot) runs one workload; REHOME_BENCH_BEFORE=BIN adds an earlier
// rehome binary as a contender.
func BenchmarkVersusBarePodman(b *testing.B) {
	e := benchEngine(b)
	rounds := 5
	if v, err := strconv.Atoi(os.Getenv("REHOME_BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	dir := b.TempDir()
	os.Chmod(dir, 0o755)
	csv := filepath.Join(dir, "data.csv")
	size := writeBenchCSV(b, csv, 100<<20)
	script := filepath.Join(dir, "plot.py")
	os.WriteFile(script, []byte(benchPlot), 0o644)
	print1 := filepath.Join(dir, "print1.py")
	os.WriteFile(print1, []byte("print(1)\n"), 0o644)

	// The rehome binary: $REHOME_BIN (make bench), else built from this
	// checkout.
	bin := os.Getenv("REHOME_BIN")
	if bin == "" {
		bin = filepath.Join(dir, "rehome")
		if err := rehomebin.Build(bin); err != nil {
			b.Fatal(err)
		}
	}
	home := filepath.Join(dir, "home")

	rt, _ := e.Runtime(context.Background())
	bare := func(code string) []string {
		// Only what this host needs for podman run to work at all: a
		// runtime that handles its cgroups, and rlimits root may set
		// without CAP_SYS_RESOURCE.
		return []string{"--runtime", rt, "run", "--rm", "--network", "none",
			"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096",
			"-v", csv + ":/mnt/data/data.csv:ro", "-w", "/tmp", e.image, "python3", "-c", code}
	}
	var cliOf func(bin, scriptPath string, withFile bool) func() (string, error)
	cli := func(scriptPath string, withFile bool) func() (string, error) {
		return cliOf(bin, scriptPath, withFile)
	}
	cliOf = func(bin, scriptPath string, withFile bool) func() (string, error) {
		return func() (string, error) {
			args := []string{"run", "--json", "--memory", "2GiB"}
			if withFile {
				args = append(args, "--file", csv)
			}
			args = append(args, scriptPath)
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "REHOME_HOME="+home)
			out, err := cmd.Output()
			if err != nil {
				return string(out), fmt.Errorf("rehome run: %v", err)
			}
			return string(out), nil
		}
	}
	engineRun := func(code string, withFile bool) func() (string, error) {
		return func() (string, error) {
			req := RunRequest{Code: code, Limits: Limits{Memory: 2 * giB}, OutputDir: filepath.Join(dir, "out-"+NewRunID())}
			if withFile {
				req.InputPath = csv
			}
			res, err := e.Run(context.Background(), req, nil)
			if err != nil {
				return "", err
			}
			if res.ExitCode != 0 {
				return res.Stdout, fmt.Errorf("%s: %s", res.Summary, res.Stderr)
			}
			return res.Stdout, nil
		}
	}
	podman := func(args []string) func() (string, error) {
		return func() (string, error) {
			out, err := exec.Command("podman", args...).CombinedOutput()
			if err != nil {
				return string(out), fmt.Errorf("podman run: %v", err)
			}
			return string(out), nil
		}
	}
	suites := []benchSuite{
		{fmt.Sprintf("plot of a %s CSV", bytesize.Format(size)), " rows", []benchContender{
			{"bare podman run --rm", podman(bare(benchPlot))},
			{"rehome run (CLI)", cli(script, true)},
			{"Engine.Run (app)", engineRun(benchPlot, true)},
		}},
		{"print(1)", "1", []benchContender{
			{"bare podman run --rm", podman(bare("print(1)"))},
			{"rehome run (CLI)", cli(print1, false)},
			{"Engine.Run (app)", engineRun("print(1)\n", false)},
		}},
	}
	// REHOME_BENCH_BEFORE names another rehome binary (an earlier build)
	// to measure beside, in the same rounds: before and after in one table.
	if before := os.Getenv("REHOME_BENCH_BEFORE"); before != "" {
		for i := range suites {
			withFile := strings.HasPrefix(suites[i].name, "plot")
			sp := print1
			if withFile {
				sp = script
			}
			suites[i].cs = append(suites[i].cs, benchContender{"rehome run (before)", cliOf(before, sp, withFile)})
		}
	}
	if only := os.Getenv("REHOME_BENCH_ONLY"); only != "" {
		suites = slices.DeleteFunc(suites, func(s benchSuite) bool {
			return !strings.Contains(s.name, only)
		})
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-26s %-22s %10s %10s %10s %8s\n", "workload", "contender", "median", "min", "max", "× bare")
	for _, s := range suites {
		times := pairedRounds(b, s, rounds)
		base := median(times[0])
		for i, c := range s.cs {
			m := median(times[i])
			ratio := float64(m) / float64(base)
			fmt.Fprintf(&table, "%-26s %-22s %10s %10s %10s %8.2f\n", s.name, c.name, m.Round(time.Millisecond),
				slices.Min(times[i]).Round(time.Millisecond), slices.Max(times[i]).Round(time.Millisecond), ratio)
			if i > 0 {
				b.ReportMetric(ratio, strings.ReplaceAll(fmt.Sprintf("x-bare:%s:%s", s.name, c.name), " ", "_"))
			}
			if strings.HasPrefix(s.name, "plot") && i > 0 && ratio > 1.2 {
				b.Errorf("%s with %s took %.2f× bare podman (target ≤ 1.2×)", s.name, c.name, ratio)
			}
			if s.name == "print(1)" && c.name == "rehome run (CLI)" && ratio > 1.0 {
				b.Errorf("%s with %s took %.2f× bare podman (target ≤ 1.0×)", s.name, c.name, ratio)
			}
		}
	}
	fmt.Fprintf(&table, "(%d rounds each, alternating; podman %s, runtime %s, rootless=%t)\n", rounds, e.Host().PodmanVersion, rt, e.Host().Rootless)
	for _, b := range []string{bin, os.Getenv("REHOME_BENCH_BEFORE")} {
		if out, err := exec.Command("ldd", b).Output(); err == nil {
			fmt.Fprintf(&table, "%s links %d libraries\n", b, strings.Count(strings.TrimSpace(string(out)), "\n")+1)
		}
	}
	fmt.Print(table.String())
}

func benchEngine(b *testing.B) *Engine {
	engineOnce.Do(func() {
		ctx := context.Background()
		engine, engineErr = New(ctx, Options{})
		if engineErr == nil {
			engineErr = engine.EnsureImage(ctx, nil)
		}
	})
	if engineErr != nil {
		b.Skipf("no Podman sandbox here: %v", engineErr)
	}
	return engine
}

// benchContender is one way of running a paired bench's workload.
type benchContender struct {
	name string
	run  func() (string, error)
}

// benchSuite is one workload of a paired bench: its contenders (the first
// is the baseline) and what each one's output must hold.
type benchSuite struct {
	name, check string
	cs          []benchContender
}

// pairedRounds runs each contender of s once to warm up (caches, the
// runtime probe), then rounds rounds in which the contenders alternate, so
// that a machine getting busier or quieter hits every one alike; it
// returns each contender's times.
func pairedRounds(b *testing.B, s benchSuite, rounds int) [][]time.Duration {
	b.Helper()
	times := make([][]time.Duration, len(s.cs))
	for _, c := range s.cs {
		if out, err := c.run(); err != nil || !strings.Contains(out, s.check) {
			b.Fatalf("%s / %s: %v\n%s", s.name, c.name, err, out)
		}
	}
	for r := 0; r < rounds; r++ {
		for i, c := range s.cs {
			start := time.Now()
			if out, err := c.run(); err != nil || !strings.Contains(out, s.check) {
				b.Fatalf("%s / %s: %v\n%s", s.name, c.name, err, out)
			}
			times[i] = append(times[i], time.Since(start))
		}
	}
	return times
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// writeBenchCSV writes a CSV of about size bytes: dates, regions, numbers.
func writeBenchCSV(b *testing.B, path string, size int64) int64 {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewSource(1))
	regions := []string{"north", "south", "east", "west", "central"}
	n, _ := w.WriteString("date,region,units,revenue,cost\n")
	written := int64(n)
	day := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; written < size; i++ {
		n, _ := fmt.Fprintf(w, "%s,%s,%d,%.2f,%.2f\n", day.AddDate(0, 0, i%1500).Format("2006-01-02"),
			regions[r.Intn(len(regions))], r.Intn(1000), r.Float64()*10000, r.Float64()*8000)
		written += int64(n)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	os.Chmod(path, 0o644)
	return written
}
