package sandbox

import (
	"context"
	"os"
	"strings"
	"time"
)

// The self-test's attacks on kernel surfaces and host facts (issue 9):
// the kernel keyring shared between runs, new user namespaces, AF_VSOCK
// and other socket families, signals to PID 1, and what the sandbox can
// learn about the host. Each probe prints HELD, or BROKEN/WEAK lines.

// attackKernel adds the checks "keyring", "user namespaces", "sockets",
// "pid 1" and "host facts" to a self-test. run runs one probe (name, code,
// limits, with the self-test's input or not); workDir is the host folder
// of the self-test's input, which the code must not learn.
func (e *Engine) attackKernel(ctx context.Context, run func(name, code string, lim Limits, withInput bool) (*Result, error), add func(name string, s Strength, format string, a ...any), workDir, token string) {
	lim := Limits{Timeout: 60 * time.Second}

	// Keyring: one run plants the token in its user keyring, a second run
	// (later, on another "file") looks for it.
	plant := strings.ReplaceAll(probeKeyringPlant, "TOKEN", token)
	look := strings.ReplaceAll(probeKeyringLook, "TOKEN", token)
	if a, err := run("keyring", plant, lim, false); err != nil {
		add("keyring", NotHeld, "the probe could not run: %v", err)
	} else if b, err := run("keyring", look, lim, false); err != nil {
		add("keyring", NotHeld, "the second probe could not run: %v", err)
	} else {
		switch {
		case a.ExitCode != 0 || b.ExitCode != 0:
			add("keyring", NotHeld, "a probe failed: %s %s | %s %s", a.Summary, lastLine(a.Stderr), b.Summary, lastLine(b.Stderr))
		case strings.Contains(b.Stdout, "FOUND"):
			add("keyring", NotHeld, "a run read what an earlier run left in the kernel keyring: %s", printable(a.Stdout+" | "+b.Stdout, 500))
		case strings.Contains(a.Stdout, "PLANTED"):
			add("keyring", Weaker, "the keyring calls work (the seccomp profile does not refuse them), but each run has a user namespace and so a keyring of its own: %s", printable(a.Stdout, 300))
		case strings.Contains(a.Stdout, "HELD") && strings.Contains(b.Stdout, "HELD"):
			add("keyring", Held, "keyctl, add_key and request_key are refused (%s); a second run found nothing of the first", printable(firstLine(a.Stdout, "HELD"), 200))
		default:
			add("keyring", NotHeld, "unclear outcome: %s | %s", printable(a.Stdout, 300), printable(b.Stdout, 300))
		}
	}

	// User namespaces and the identity the code runs as.
	if res, err := run("user namespaces", probeUserNS, lim, false); err != nil {
		add("user namespaces", NotHeld, "the probe could not run: %v", err)
	} else {
		detail := "unshare(CLONE_NEWUSER), clone(CLONE_NEWUSER) and clone3 are refused; " + printable(firstLine(res.Stdout, "MAP"), 200)
		s := gradeProbe(res)
		if s == Held && !e.Host().Rootless && !strings.Contains(res.Stdout, "OWNNS") {
			s, detail = Weaker, detail+" — but the sandbox's user is the host's uid 10001 (no user namespace of the run's own)"
		}
		if s == Held && e.Host().Rootless {
			detail += " (rootless: the sandbox's user is one of your subordinate ids, shared by your runs; the keyring stays refused)"
		}
		add("user namespaces", s, "%s", probeDetail(res, detail))
	}

	// Socket families that cross the network namespace or need no address.
	if res, err := run("sockets", probeSockets, lim, false); err != nil {
		add("sockets", NotHeld, "the probe could not run: %v", err)
	} else {
		add("sockets", gradeProbe(res), "%s", probeDetail(res, "AF_VSOCK, AF_PACKET, raw IP sockets and io_uring are refused"))
	}

	// PID 1: signals from the code do not lose the report.
	if res, err := run("pid 1", probeSignals, lim, false); err != nil {
		add("pid 1", NotHeld, "the probe could not run: %v", err)
	} else if res.ExitCode != 0 || !strings.Contains(res.Stdout, "PRINTED-BEFORE") || !strings.Contains(res.Stdout, "AFTER") {
		add("pid 1", NotHeld, "after SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to PID 1: %s (stdout %q)", res.Summary, printable(res.Stdout, 200))
	} else {
		add("pid 1", Held, "SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to PID 1 by the code changed nothing: the output printed before and after came back with the report")
	}

	// Host facts: the input's host folder, the host's names, its resolver.
	host, _ := os.Hostname()
	code := strings.NewReplacer("WORKDIR", workDir, "HOSTNAME", host).Replace(probeHostFacts)
	if res, err := run("host facts", code, lim, true); err != nil {
		add("host facts", NotHeld, "the probe could not run: %v", err)
	} else {
		add("host facts", gradeProbe(res), "%s", probeDetail(res, "the mount table names no host folder of the input; /etc/hosts holds only localhost and the sandbox's own name; no /etc/resolv.conf"))
	}
}

func firstLine(out, prefix string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}
