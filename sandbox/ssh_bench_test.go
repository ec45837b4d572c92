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
	"rehome/internal/testsupport/rehomebin"
	"rehome/internal/testsupport/sshdtest"
	"rehome/internal/testsupport/teamhost"

	"rehome/sandbox/link"
)

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// BenchmarkTeamHostVersusPodmanRemote measures a run on a team host — a
// real sshd on 127.0.0.1 in front of this machine's Podman service —
// against `podman --remote --url ssh://… --identity … run --rm` of the same
// image with the same limits, in paired rounds (the contenders alternate,
// so that drift of the machine hits all alike); the table gives medians.
// The team host is rehome-team's rootless service on this machine
// (teamhost). Workloads: print(1), and a read of a 10 MiB CSV (rehome sends
// it over the connection; podman --remote bind-mounts the path, which only
// works because the "team host" is this machine and the file is readable
// by rehome-team). Each `rehome run` and each
// `podman --remote` opens its own SSH connection; Engine.Run (the window,
// `rehome serve`) keeps one.
//
//	go test -tags '…' -run '^$' -bench TeamHostVersusPodmanRemote -benchtime 1x ./sandbox/
//
// REHOME_BENCH_ROUNDS sets the rounds (default 5).
func BenchmarkTeamHostVersusPodmanRemote(b *testing.B) {
	local := benchEngine(b)
	rounds := 5
	if v, err := strconv.Atoi(os.Getenv("REHOME_BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	// The team host: rehome-team's rootless service (teamhost), reached
	// over sshd as that account, its image loaded.
	th := teamhost.Ensure(b, teamhost.User)
	if _, archive := teamhost.SandboxImage(); !fileExists(archive) {
		if err := local.SaveImage(context.Background(), archive); err != nil {
			b.Fatal(err)
		}
	}
	th.EnsureSandboxImage(b)
	srv := sshdtest.Start(b, sshdtest.Options{User: teamhost.User})
	uri := srv.URI(th.Socket)
	// podman --remote bind-mounts the CSV: rehome-team must reach it (a
	// test's TempDir sits in a 0700 folder).
	dir, err := os.MkdirTemp("", "rehome-bench-team-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	home := filepath.Join(dir, "home") // $HOME of both clients: its known_hosts knows the host
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "known_hosts"), []byte(srv.HostKeyLine+"\n"), 0o600)
	csv := filepath.Join(dir, "data.csv")
	size := writeBenchCSV(b, csv, 10<<20)
	readCSV := "import pandas as pd\nprint(len(pd.read_csv('/mnt/data/data.csv')), 'rows')\n"
	scripts := map[string]string{"print": filepath.Join(dir, "print1.py"), "csv": filepath.Join(dir, "csv.py")}
	os.WriteFile(scripts["print"], []byte("print(1)\n"), 0o644)
	os.WriteFile(scripts["csv"], []byte(readCSV), 0o644)

	bin := rehomebin.Binary(b)
	env := append(os.Environ(), "HOME="+home, "SSH_AUTH_SOCK=", "CONTAINER_HOST=", "REHOME_HOME="+filepath.Join(dir, "data"))
	lim := DefaultLimits
	podmanRemote := func(code string, withFile bool) func() (string, error) {
		// The same image and limits as a rehome run: no network, memory,
		// pids, CPU, read-only input.
		args := []string{"--remote", "--url", uri, "--identity", srv.ClientKey, "run", "--rm", "--network", "none",
			"--memory", strconv.FormatInt(lim.Memory, 10), "--pids-limit", strconv.FormatInt(lim.Pids, 10), "--cpus", strconv.FormatFloat(lim.CPUs, 'f', -1, 64),
			"--ulimit", "nofile=1024:1024", "-w", "/tmp"}
		if withFile {
			args = append(args, "-v", csv+":/mnt/data/data.csv:ro")
		}
		args = append(args, local.image, "python3", "-c", code)
		return func() (string, error) {
			cmd := exec.Command("podman", args...)
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err != nil {
				return string(out), fmt.Errorf("podman --remote run: %v", err)
			}
			return string(out), nil
		}
	}
	cli := func(script string, withFile bool) func() (string, error) {
		args := []string{"run", "--json", "--podman", uri, "--identity", srv.ClientKey}
		if withFile {
			args = append(args, "--file", csv)
		}
		args = append(args, script)
		return func() (string, error) {
			cmd := exec.Command(bin, args...)
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err != nil {
				return string(out), fmt.Errorf("rehome run: %v", err)
			}
			return string(out), nil
		}
	}
	remote, err := New(context.Background(), Options{Connect: link.ConnectOptions{URI: uri, Identity: srv.ClientKey, SSHDir: filepath.Join(home, ".ssh")}, CacheDir: b.TempDir()})
	if err != nil {
		b.Fatalf("engine on the team host: %v", err)
	}
	defer remote.Close()
	engineRun := func(code string, withFile bool) func() (string, error) {
		return func() (string, error) {
			req := RunRequest{Code: code, OutputDir: filepath.Join(dir, "out-"+NewRunID())}
			if withFile {
				req.InputPath = csv
			}
			res, err := remote.Run(context.Background(), req, nil)
			if err != nil {
				return "", err
			}
			if res.ExitCode != 0 {
				return res.Stdout, fmt.Errorf("%s: %s", res.Summary, res.Stderr)
			}
			return res.Stdout, nil
		}
	}
	suites := []benchSuite{
		{"print(1)", "1", []benchContender{
			{"podman --remote run", podmanRemote("print(1)", false)},
			{"rehome run --podman ssh", cli(scripts["print"], false)},
			{"Engine.Run over ssh", engineRun("print(1)\n", false)},
		}},
		{fmt.Sprintf("read a %s CSV", bytesize.Format(size)), " rows", []benchContender{
			{"podman --remote run", podmanRemote(readCSV, true)},
			{"rehome run --podman ssh", cli(scripts["csv"], true)},
			{"Engine.Run over ssh", engineRun(readCSV, true)},
		}},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-22s %-24s %10s %10s %10s %9s\n", "workload", "contender", "median", "min", "max", "× podman")
	for _, s := range suites {
		times := pairedRounds(b, s, rounds)
		base := median(times[0])
		for i, c := range s.cs {
			m := median(times[i])
			ratio := float64(m) / float64(base)
			fmt.Fprintf(&table, "%-22s %-24s %10s %10s %10s %9.2f\n", s.name, c.name, m.Round(time.Millisecond),
				slices.Min(times[i]).Round(time.Millisecond), slices.Max(times[i]).Round(time.Millisecond), ratio)
			if i > 0 {
				b.ReportMetric(ratio, strings.ReplaceAll(fmt.Sprintf("x-podman-remote:%s:%s", s.name, c.name), " ", "_"))
			}
		}
	}
	fmt.Fprintf(&table, "(%d rounds each, alternating; podman %s of %s over ssh to 127.0.0.1, rootless=%t, cgroup %s)\n", rounds, remote.Host().PodmanVersion, teamhost.User, remote.Host().Rootless, remote.Host().CgroupVersion)
	fmt.Print(table.String())
}
