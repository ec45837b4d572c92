package sandbox

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"rehome/backend/bytesize"
)

// The self-test's table: each row attacks one guarantee, on the paths it
// holds on. Code runs on two paths — a one-shot run (Engine.Run) and a
// session cell (StartSession + Exec, a fresh session per probe) — and each
// row is run and graded on each of its paths, so that a guarantee held on
// one path and not on the other shows.

// Paths code runs on, as Check.Path names them.
const (
	pathOneShot = "one-shot"
	pathSession = "session"
)

// probeEnv is what a row's check has: the path's runner, and the
// self-test's files.
type probeEnv struct {
	ctx  context.Context
	e    *Engine
	path string
	// run runs code on the row's path (a one-shot run, or a cell of a fresh
	// session), with the self-test's input or without.
	run func(code string, lim Limits, withInput bool) (*Result, error)
	// work is the host folder of the self-test's input; secret a file
	// beside it; token the self-test's random word.
	work, secret, token string
}

// doctorProbe is one row of the self-test.
type doctorProbe struct {
	name  string
	paths []string
	// check attacks the guarantee; an error means the probe could not run.
	check func(p *probeEnv) (Strength, string, error)
}

var bothPaths = []string{pathOneShot, pathSession}

// simpleProbe is a row whose probe prints HELD / WEAK / BROKEN lines.
func simpleProbe(name string, paths []string, code func(p *probeEnv) string, withInput bool, held string) doctorProbe {
	return doctorProbe{name: name, paths: paths, check: func(p *probeEnv) (Strength, string, error) {
		res, err := p.run(code(p), Limits{Timeout: 60 * time.Second}, withInput)
		if err != nil {
			return NotHeld, "", err
		}
		return gradeProbe(res), probeDetail(res, held), nil
	}}
}

func fixed(code string) func(*probeEnv) string { return func(*probeEnv) string { return code } }

// doctorProbes is the self-test, in the order it runs.
var doctorProbes = []doctorProbe{
	simpleProbe("filesystem", bothPaths, func(p *probeEnv) string {
		return strings.NewReplacer("SECRET", p.secret, "WORKDIR", p.work, "TOKEN", p.token).Replace(probeFilesystem)
	}, true, "read the input; could not read a file next to it on the host, write the input, the root file system or any host path; /mnt/data holds only the input; no Podman socket, no capabilities"),
	simpleProbe("network", bothPaths, fixed(probeNetwork), false, "only the loopback interface; connecting out, resolving names and pip install all fail at once"),
	{name: "timeout", paths: []string{pathOneShot}, check: checkTimeout},
	{name: "cell end", paths: []string{pathSession}, check: checkCellEnd},
	{name: "memory", paths: bothPaths, check: checkMemory},
	{name: "pids", paths: bothPaths, check: checkPids},
	{name: "cpu", paths: bothPaths, check: checkCPU},
	{name: "stdout flood", paths: []string{pathOneShot}, check: checkFlood},
	{name: "outputs", paths: []string{pathOneShot}, check: checkOutputs},
	simpleProbe("privileges", bothPaths, fixed(probePrivileges), false, "no capabilities, no-new-privileges, seccomp filter, user 10001, host name \"sandbox\", only rehome's environment variables"),
	{name: "keyring", paths: bothPaths, check: checkKeyring},
	{name: "user namespaces", paths: bothPaths, check: checkUserNS},
	simpleProbe("sockets", bothPaths, fixed(probeSockets), false, "AF_VSOCK, AF_PACKET, raw IP sockets and io_uring are refused"),
	simpleProbe("shared memory", bothPaths, fixed(probeSharedMemory), false, "memfd_create and System V shared memory (shmget) are refused; POSIX shared memory (/dev/shm, a sized tmpfs) works"),
	{name: "pid 1", paths: bothPaths, check: checkSignals},
	simpleProbe("pid 1 limits", bothPaths, fixed(probePID1Limits), false, "prlimit, sched_setscheduler and setpriority of PID 1 (the runner or the session's supervisor) are refused; its output came back"),
	{name: "host facts", paths: bothPaths, check: checkHostFacts},
}

func checkTimeout(p *probeEnv) (Strength, string, error) {
	marker := fmt.Sprintf("%d.%s", 1000+time.Now().UnixNano()%1000, "4242")
	tl := Limits{Timeout: 3 * time.Second}
	res, err := p.run(strings.ReplaceAll(probeTimeout, "MARKER", marker), tl, false)
	if err != nil {
		return NotHeld, "", err
	}
	gone := !p.e.containerExists(p.ctx, res.ID)
	if p.e.remote() {
		// A team host's processes cannot be seen from here: the
		// container (and with it its cgroup) being gone is what is checked.
		switch {
		case !res.TimedOut:
			return NotHeld, fmt.Sprintf("a script that ignores SIGTERM, double-forks and sleeps in C was not stopped at %s (exit %d)", tl.Timeout, res.ExitCode), nil
		case !gone:
			return NotHeld, fmt.Sprintf("stopped at %s, but its container still exists on %s", tl.Timeout, p.e.TeamHost()), nil
		}
		return Held, fmt.Sprintf("a script that ignores SIGTERM, double-forks a sleeper and sleeps in C was killed at %s (after %d ms) and its container removed on %s (its processes there cannot be counted from this machine)", tl.Timeout, res.DurationMS, p.e.TeamHost()), nil
	}
	left := hostProcessesWith("sleep " + marker)
	switch {
	case !res.TimedOut:
		return NotHeld, fmt.Sprintf("a script that ignores SIGTERM, double-forks and sleeps in C was not stopped at %s (exit %d)", tl.Timeout, res.ExitCode), nil
	case left > 0 || !gone:
		return NotHeld, fmt.Sprintf("stopped at %s, but %d of its processes survive on the host and the container exists=%t", tl.Timeout, left, !gone), nil
	}
	return Held, fmt.Sprintf("a script that ignores SIGTERM, double-forks a sleeper and sleeps in C was killed whole at %s (after %d ms), no process of it left on the host, the container removed", tl.Timeout, res.DurationMS), nil
}

// checkCellEnd: the cell's code writes the kernel's "done" itself, then
// sleeps 40 s under a 3 s limit.
func checkCellEnd(p *probeEnv) (Strength, string, error) {
	start := time.Now()
	res, err := p.run(probeCellEnd, Limits{Timeout: 3 * time.Second}, false)
	if err != nil {
		return NotHeld, "", err
	}
	took := time.Since(start)
	switch {
	case strings.Contains(res.Stdout, "RAN-ON"):
		return NotHeld, fmt.Sprintf("the code ran past its 3s limit (%s)", res.Summary), nil
	case !res.TimedOut || took < 3*time.Second:
		return NotHeld, fmt.Sprintf("a forged end of the cell was believed: %q after %s", res.Summary, took.Round(time.Millisecond)), nil
	}
	return Held, fmt.Sprintf("a cell that wrote the kernel's own \"done\" and slept on was stopped at its 3s limit (%s)", res.Summary), nil
}

func checkMemory(p *probeEnv) (Strength, string, error) {
	res, err := p.run(probeMemory, Limits{Timeout: 60 * time.Second, Memory: 128 * MiB}, false)
	if err != nil {
		return NotHeld, "", err
	}
	lim := res.Limits.Memory
	switch {
	case strings.Contains(res.Stdout, "ALLOCATED"):
		return NotHeld, fmt.Sprintf("the code allocated and touched 512 MiB under a 128 MiB ceiling (%s)", lim.How), nil
	case res.OOMKilled && lim.Strength == Held:
		return Held, fmt.Sprintf("allocating past 128 MiB got the code killed by the kernel (%s); reported as oom_killed", lim.How), nil
	case res.OOMKilled || strings.Contains(res.Stderr, "MemoryError"):
		return Weaker, fmt.Sprintf("allocating past 128 MiB was stopped (%s): %s", res.Summary, lim.How), nil
	}
	return NotHeld, fmt.Sprintf("unclear outcome: %s (%s)", res.Summary, lim.How), nil
}

func checkPids(p *probeEnv) (Strength, string, error) {
	res, err := p.run(probePids, Limits{Timeout: 60 * time.Second, Pids: 32}, false)
	if err != nil {
		return NotHeld, "", err
	}
	n := parseCount(res.Stdout, "FORKED")
	lim := res.Limits.Pids
	switch {
	case n < 0:
		return NotHeld, fmt.Sprintf("the fork probe did not report (%s)", res.Summary), nil
	case n >= 64:
		return NotHeld, fmt.Sprintf("the code started %d processes under a ceiling of 32 (%s)", n, lim.How), nil
	}
	return lim.Strength, fmt.Sprintf("forking 64 processes stopped at %d under a ceiling of 32: %s", n, lim.How), nil
}

// checkCPU reports how the path holds the CPU quota.
func checkCPU(p *probeEnv) (Strength, string, error) {
	res, err := p.run("print('cpu')", Limits{Timeout: 60 * time.Second}, false)
	if err != nil {
		return NotHeld, "", err
	}
	return res.Limits.CPU.Strength, res.Limits.CPU.How, nil
}

func checkFlood(p *probeEnv) (Strength, string, error) {
	fl := Limits{Timeout: 60 * time.Second, StdoutMax: 64 * kiB, StderrMax: 64 * kiB}
	res, err := p.run(probeFlood, fl, false)
	if err != nil {
		return NotHeld, "", err
	}
	if res.StdoutTruncated && len(res.Stdout) <= int(fl.StdoutMax) && res.ExitCode == 0 {
		return Held, fmt.Sprintf("200 MiB printed: the first %s kept, the rest counted and dropped, nothing written to disk (%d ms)", bytesize.Format(int64(len(res.Stdout))), res.DurationMS), nil
	}
	return NotHeld, fmt.Sprintf("200 MiB printed: kept %s, truncated=%t, %s", bytesize.Format(int64(len(res.Stdout))), res.StdoutTruncated, res.Summary), nil
}

func checkOutputs(p *probeEnv) (Strength, string, error) {
	ol := Limits{Timeout: 60 * time.Second, OutputFiles: 8, OutputBytes: 4 * MiB}
	res, err := p.run(probeOutputs, ol, true)
	if err != nil {
		return NotHeld, "", err
	}
	return gradeOutputs(res, ol), outputsDetail(res), nil
}

// checkKeyring: one sandbox plants the token in its user keyring, a second
// (a later run, another session) looks for it.
func checkKeyring(p *probeEnv) (Strength, string, error) {
	lim := Limits{Timeout: 60 * time.Second}
	a, err := p.run(strings.ReplaceAll(probeKeyringPlant, "TOKEN", p.token), lim, false)
	if err != nil {
		return NotHeld, "", err
	}
	b, err := p.run(strings.ReplaceAll(probeKeyringLook, "TOKEN", p.token), lim, false)
	if err != nil {
		return NotHeld, "", fmt.Errorf("the second probe: %w", err)
	}
	switch {
	case a.ExitCode != 0 || b.ExitCode != 0:
		return NotHeld, fmt.Sprintf("a probe failed: %s %s | %s %s", a.Summary, lastLine(a.Stderr), b.Summary, lastLine(b.Stderr)), nil
	case strings.Contains(b.Stdout, "FOUND"):
		return NotHeld, "a sandbox read what an earlier one left in the kernel keyring: " + printable(a.Stdout+" | "+b.Stdout, 500), nil
	case strings.Contains(a.Stdout, "PLANTED"):
		return Weaker, "the keyring calls work (the seccomp profile does not refuse them), but each sandbox has a user namespace and so a keyring of its own: " + printable(a.Stdout, 300), nil
	case strings.Contains(a.Stdout, "HELD") && strings.Contains(b.Stdout, "HELD"):
		return Held, fmt.Sprintf("keyctl, add_key and request_key are refused (%s); a second sandbox found nothing of the first", printable(firstLine(a.Stdout, "HELD"), 200)), nil
	}
	return NotHeld, fmt.Sprintf("unclear outcome: %s | %s", printable(a.Stdout, 300), printable(b.Stdout, 300)), nil
}

func checkUserNS(p *probeEnv) (Strength, string, error) {
	res, err := p.run(probeUserNS, Limits{Timeout: 60 * time.Second}, false)
	if err != nil {
		return NotHeld, "", err
	}
	detail := "unshare(CLONE_NEWUSER), clone(CLONE_NEWUSER) and clone3 are refused; " + printable(firstLine(res.Stdout, "MAP"), 200)
	s := gradeProbe(res)
	rootless := p.e.Host().Rootless
	if s == Held && !rootless && !strings.Contains(res.Stdout, "OWNNS") {
		s, detail = Weaker, detail+" — but the sandbox's user is the host's uid 10001 (no user namespace of its own)"
	}
	if s == Held && rootless {
		detail += " (rootless: the sandbox's user is one of your subordinate ids, shared by your sandboxes; the keyring stays refused)"
	}
	return s, probeDetail(res, detail), nil
}

// checkSignals: signals from the code to PID 1 do not lose the output.
func checkSignals(p *probeEnv) (Strength, string, error) {
	res, err := p.run(probeSignals, Limits{Timeout: 60 * time.Second}, false)
	if err != nil {
		return NotHeld, "", err
	}
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "PRINTED-BEFORE") || !strings.Contains(res.Stdout, "AFTER") {
		return NotHeld, fmt.Sprintf("after SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to PID 1: %s (stdout %q)", res.Summary, printable(res.Stdout, 200)), nil
	}
	return Held, "SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to PID 1 by the code changed nothing: the output printed before and after came back", nil
}

// checkHostFacts: the input's host folder, the host's names, its resolver.
func checkHostFacts(p *probeEnv) (Strength, string, error) {
	host, _ := os.Hostname()
	code := strings.NewReplacer("WORKDIR", p.work, "HOSTNAME", host).Replace(probeHostFacts)
	res, err := p.run(code, Limits{Timeout: 60 * time.Second}, true)
	if err != nil {
		return NotHeld, "", err
	}
	return gradeProbe(res), probeDetail(res, "the mount table names no host folder of the input; /etc/hosts holds only localhost and the sandbox's own name; no /etc/resolv.conf"), nil
}

func firstLine(out, prefix string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}
