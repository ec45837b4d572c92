package sandbox

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"rehome/backend/bytesize"

	"rehome/sandbox/link"
)

// finish fills a Result from what the runner reported (the frames) and what
// rehome saw from outside (the outcome). Where the two could disagree, what
// was observed wins, and the report says what it rests on.
func finish(res *Result, lim Limits, j job, col *collector, out *outcome) {
	res.DurationMS = out.elapsed.Milliseconds()
	if out.codeElapsed > 0 {
		res.DurationMS = out.codeElapsed.Milliseconds()
	}
	res.TimedOut = out.timedOut
	res.Stdout = string(col.stdout.buf)
	res.Stderr = string(col.stderr.buf)
	res.StdoutTruncated = col.stdout.truncated()
	res.StderrTruncated = col.stderr.truncated()
	res.Files = append(res.Files, col.files...)
	res.Displays = col.displays
	res.Skipped = col.skipped
	var obs *Observed
	if col.hello != nil {
		obs = col.hello.Observed
	}
	res.Limits = limitsReport(lim, j, obs)

	note := func(format string, a ...any) { res.Notes = append(res.Notes, fmt.Sprintf(format, a...)) }
	x := col.exit
	if x != nil {
		res.StdoutTruncated = res.StdoutTruncated || x.StdoutBytes > lim.StdoutMax
		res.StderrTruncated = res.StderrTruncated || x.StderrBytes > lim.StderrMax
		if x.MemoryPeak != nil && *x.MemoryPeak > 0 {
			res.MemoryPeakBytes = *x.MemoryPeak
		} else if x.RSSPeak > 0 {
			res.MemoryPeakBytes = x.RSSPeak
		}
	}
	var lost *link.ConnectionLostError
	switch {
	case errors.As(out.lost, &lost):
		res.ConnectionLost = true
		res.Summary = fmt.Sprintf("The connection to %s was lost after %.1f s; the output so far is kept. The sandbox there ends by itself at its %s limit, and rehome removes it on the next connection.",
			lost.Host, out.elapsed.Seconds(), roundDuration(lim.Timeout))
	case out.stopped:
		res.Summary = "Stopped by the user; the sandbox was killed and removed."
	case out.timedOut:
		res.Summary = fmt.Sprintf("Stopped after %s: the time limit was reached, and the whole sandbox was killed from outside.", roundDuration(lim.Timeout))
	case x != nil && x.Refused != "":
		res.Summary = "Not run: " + x.Refused + ". Try again."
	case x != nil && x.DeadlineKilled:
		res.TimedOut = true
		res.Summary = fmt.Sprintf("Stopped at the %s limit: the code and everything it started were killed; what it printed and saved before the limit is kept.", roundDuration(lim.Timeout))
	case x != nil:
		summarizeExit(res, lim, j, x, out.elapsed)
	default:
		summarizeNoReport(res, lim, out.exitCode)
	}

	outcomeNotes(res, lim, out, x)
	explainFailure(res, lim, j)
	if !out.removed && out.lost == nil {
		note("The sandbox container could not be confirmed removed (%v); `rehome sandbox doctor` lists and removes leftovers.", out.removeErr)
	}
}

// resultNote adds a note in words to the result.
func resultNote(res *Result, format string, a ...any) {
	res.Notes = append(res.Notes, fmt.Sprintf(format, a...))
}

// summarizeExit says how the code ended by the runner's last word: its
// exit code, a memory kill, or a signal.
func summarizeExit(res *Result, lim Limits, j job, x *exitFrame, elapsed time.Duration) {
	if x.ExitCode != nil {
		res.ExitCode = *x.ExitCode
	}
	switch {
	case x.OOMKills != nil && *x.OOMKills > 0:
		res.OOMKilled = true
		res.Summary = fmt.Sprintf("Killed for using more than %s of memory (the kernel's OOM killer acted inside the sandbox's cgroup).", bytesize.Format(lim.Memory))
	case x.WatchdogKilled:
		res.OOMKilled = true
		res.Summary = fmt.Sprintf("Killed for using more than %s of memory (rehome's memory watchdog: this host cannot hold a cgroup memory ceiling).", bytesize.Format(lim.Memory))
	case res.ExitCode == 0:
		res.Summary = fmt.Sprintf("Finished in %s.", roundDuration(elapsed))
	case x.Signal != nil:
		res.Summary = fmt.Sprintf("The code was killed by signal %d (%s).", *x.Signal, signalName(*x.Signal))
		if *x.Signal == 9 && x.OOMKills == nil && lim.Memory > 0 && j.cgroups.Memory {
			resultNote(res, "The kernel's OOM-kill counter could not be read in this container, so a memory kill cannot be told apart from another SIGKILL.")
		}
	default:
		res.Summary = fmt.Sprintf("The code failed with exit code %d.", res.ExitCode)
	}
}

// summarizeNoReport says how the sandbox ended without the runner's last
// word: it died. With no timeout and no stop, on this host only the
// kernel kills PID 1 of the sandbox, and the OOM killer is what does that.
func summarizeNoReport(res *Result, lim Limits, exitCode int) {
	if exitCode != 137 {
		res.Summary = fmt.Sprintf("The sandbox ended without a report (exit status %d).", exitCode)
		return
	}
	res.OOMKilled = true
	res.ExitCode = 137
	res.Summary = fmt.Sprintf("The sandbox was killed by SIGKILL before it could report; nothing else kills it but the kernel, most likely for memory (ceiling %s).", bytesize.Format(lim.Memory))
	resultNote(res, "Podman's own OOMKilled flag is not trusted here (it reads false even after a kernel OOM kill); this is inferred from the SIGKILL.")
}

// outcomeNotes say what was lost on the way: outputs after a collect
// timeout or a broken channel, the runner's own stderr, what was cut.
func outcomeNotes(res *Result, lim Limits, out *outcome, x *exitFrame) {
	note := func(format string, a ...any) { resultNote(res, format, a...) }
	if out.collectTimedOut {
		note("The code finished in time, but its outputs did not arrive within %s; the sandbox was killed and the outputs after that point are lost.", collectLimit)
	}
	if out.protocolError != nil {
		note("The output channel broke (%s) after which %s were dropped unread; outputs after that point are lost.", printable(out.protocolError.Error(), 200), bytesize.Format(out.dropped))
	}
	if x == nil && strings.TrimSpace(out.runnerStderr) != "" {
		note("Sandbox runner: %s", printable(strings.TrimSpace(out.runnerStderr), 500))
	}
	if res.StdoutTruncated {
		note("The code printed more than %s on stdout; only the first %s are kept.", bytesize.Format(lim.StdoutMax), bytesize.Format(lim.StdoutMax))
	}
	if res.StderrTruncated {
		note("The code printed more than %s on stderr; only the first %s are kept.", bytesize.Format(lim.StderrMax), bytesize.Format(lim.StderrMax))
	}
}

// explainFailure adds what a user needs to understand a common failure.
func explainFailure(res *Result, lim Limits, j job) {
	e := res.Stderr
	add := func(s string) { res.Notes = append(res.Notes, s) }
	switch {
	case strings.Contains(e, "No module named pip") || strings.Contains(e, "pip: not found") ||
		strings.Contains(e, "Temporary failure in name resolution") || strings.Contains(e, "Network is unreachable") ||
		strings.Contains(e, "Name or service not known"):
		add("The sandbox has no network, as on ChatGPT: nothing can be downloaded or installed. It holds " + imageLibraries + ".")
	case strings.Contains(e, "ModuleNotFoundError"):
		add("That module is not in the sandbox image, and nothing can be installed (no network). It holds " + imageLibraries + ".")
	}
	if strings.Contains(e, "MemoryError") {
		if j.cgroups.Memory {
			add(fmt.Sprintf("Python ran out of memory under the %s ceiling.", bytesize.Format(lim.Memory)))
		} else {
			add(fmt.Sprintf("Python ran out of memory: one process may use at most %s here (RLIMIT_DATA; this host cannot hold a cgroup memory ceiling).", bytesize.Format(lim.Memory)))
		}
	}
	if strings.Contains(e, "Read-only file system") {
		add("Only /mnt/data and /tmp are writable in the sandbox; files written to /mnt/data come back as outputs.")
	}
}

// imageLibraries names what the image holds, for messages.
const imageLibraries = "pandas, numpy, matplotlib, scipy, seaborn, scikit-learn, statsmodels, openpyxl, xlrd, sympy and tabulate"

func signalName(n int) string {
	names := map[int]string{1: "SIGHUP", 2: "SIGINT", 6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM", 24: "SIGXCPU", 25: "SIGXFSZ"}
	if s, ok := names[n]; ok {
		return s
	}
	return "signal " + fmt.Sprint(n)
}

func roundDuration(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// limitsReport grades each limit from what the runner saw inside the
// container (obs; nil when it said nothing).
func limitsReport(lim Limits, j job, obs *Observed) LimitsReport {
	r := LimitsReport{}
	r.Timeout = LimitStatus{
		Asked: roundDuration(lim.Timeout), Value: float64(lim.Timeout.Milliseconds()), Strength: Held,
		How: fmt.Sprintf("rehome kills the whole container from outside through the Podman API at %s (SIGKILL to its pid namespace), then removes it; conmon kills it %ds later on its own should rehome be gone. Just before the limit the sandbox's PID 1 kills all the code's processes itself, so that what it made before the limit comes back", roundDuration(lim.Timeout), killGrace),
	}
	v := observedLimits{obs: obs}
	if obs != nil {
		v.cg = &obs.Cgroup
	}
	r.Memory = v.memory(lim, j)
	r.CPU = v.cpu(lim, j)
	r.Pids = v.pids(lim, j)

	r.Stdout = LimitStatus{Asked: bytesize.Format(lim.StdoutMax), Value: float64(lim.StdoutMax), Strength: Held,
		How: "the first bytes are kept, the rest counted and dropped, by the runner and again by rehome while reading the attach stream; no log file is written (log driver none)"}
	r.Stderr = LimitStatus{Asked: bytesize.Format(lim.StderrMax), Value: float64(lim.StderrMax), Strength: Held, How: r.Stdout.How}
	r.OutputFiles = LimitStatus{Asked: fmt.Sprintf("%d files", lim.OutputFiles), Value: float64(lim.OutputFiles), Strength: Held,
		How: "counted while reading; only regular files are taken, links, devices and unsafe names refused"}
	r.OutputBytes = LimitStatus{Asked: bytesize.Format(lim.OutputBytes), Value: float64(lim.OutputBytes), Strength: Held,
		How: fmt.Sprintf("/mnt/data is an in-memory file system of %s; the total is capped again while reading", bytesize.Format(lim.OutputBytes))}
	r.Tmp = LimitStatus{Asked: bytesize.Format(lim.TmpSize), Value: float64(lim.TmpSize), Strength: Held,
		How: fmt.Sprintf("/tmp is an in-memory file system of %s; the root file system is read-only", bytesize.Format(lim.TmpSize))}
	return r
}

// observedLimits are what the sandbox saw from inside (nil: it did not
// report), against which each ceiling is judged.
type observedLimits struct {
	obs *Observed
	cg  *CgroupObserved
}

// unseenLimit qualifies a ceiling the sandbox did not confirm.
const unseenLimit = " (not confirmed: the sandbox did not report what it saw)"

// rlimit is the soft rlimit the sandbox saw, if it reported it.
func (v observedLimits) rlimit(name string) (int64, bool) {
	if v.obs == nil || v.obs.Rlimits == nil {
		return 0, false
	}
	n, ok := v.obs.Rlimits[name]
	return n[0], ok
}

// rlimitFallback grades a ceiling held by the rlimit name instead of a
// cgroup: Weaker, or NotHeld when the runner reported its rlimits and
// name is not want; seen says which, in words ("seen from inside"…).
func (v observedLimits) rlimitFallback(name string, want int64) (st Strength, seen string) {
	n, ok := v.rlimit(name)
	held := ok && n == want
	st = Weaker
	if v.obs != nil && !held {
		st = NotHeld
	}
	return st, strings.TrimPrefix(seenSuffix(held, v.obs != nil), ", ")
}

// memory is how the memory ceiling holds: a cgroup, or rlimits and the watchdog.
func (v observedLimits) memory(lim Limits, j job) LimitStatus {
	st := LimitStatus{Asked: bytesize.Format(lim.Memory), Value: float64(lim.Memory)}
	switch {
	case v.cg != nil && v.cg.MemoryLimit != nil && *v.cg.MemoryLimit <= lim.Memory && *v.cg.MemoryLimit >= lim.Memory-4096:
		st.Strength = Held
		st.How = fmt.Sprintf("cgroup v%d memory ceiling of %d bytes for the whole container, tmpfs included, no swap (seen from inside)", v.cg.Version, *v.cg.MemoryLimit)
	case !j.cgroups.Memory:
		// The watchdog holds memory whatever the rlimit shows: Weaker.
		_, seen := v.rlimitFallback("data", lim.Memory)
		st.Strength = Weaker
		st.How = fmt.Sprintf("no cgroup ceiling (rootless Podman on cgroup %s cannot hold one); instead each process has RLIMIT_DATA=%s (%s), and rehome's watchdog (PID 1 of the sandbox) samples the resident memory of all its processes every 50 ms and kills them above %s — a fast allocation can overshoot between samples",
			cgroupName(v.cg), bytesize.Format(lim.Memory), seen, bytesize.Format(lim.Memory))
	case v.cg == nil:
		st.Strength = Held
		st.How = "cgroup memory ceiling for the whole container" + unseenLimit
	default:
		st.Strength = NotHeld
		st.How = fmt.Sprintf("asked the service for a cgroup memory ceiling but the container shows %s", showLimit(v.cg.MemoryLimit))
	}
	return st
}

// cpu is how the CPU ceiling holds: a cgroup quota, or RLIMIT_CPU.
func (v observedLimits) cpu(lim Limits, j job) LimitStatus {
	st := LimitStatus{Asked: fmt.Sprintf("%g core%s", lim.CPUs, plural(lim.CPUs != 1)), Value: lim.CPUs}
	cpuSecs := int64(math.Ceil(lim.Timeout.Seconds()*lim.CPUs)) + 1
	switch {
	case v.cg != nil && v.cg.CPUQuota != nil && v.cg.CPUPeriod != nil && *v.cg.CPUPeriod > 0 &&
		math.Abs(float64(*v.cg.CPUQuota)/float64(*v.cg.CPUPeriod)-lim.CPUs) < 0.01:
		st.Strength = Held
		st.How = fmt.Sprintf("cgroup CPU quota of %d µs per %d µs (seen from inside)", *v.cg.CPUQuota, *v.cg.CPUPeriod)
	case !j.cgroups.CPU:
		var seen string
		st.Strength, seen = v.rlimitFallback("cpu", cpuSecs)
		st.How = fmt.Sprintf("no cgroup quota on this host; instead each process may burn at most %d s of CPU time (RLIMIT_CPU, %s), and the wall-clock timeout holds", cpuSecs, seen)
	case v.cg == nil:
		st.Strength = Held
		st.How = "cgroup CPU quota" + unseenLimit
	default:
		st.Strength = NotHeld
		st.How = "asked the service for a cgroup CPU quota but the container shows none"
	}
	return st
}

// pids is how the process ceiling holds: pids.max, or RLIMIT_NPROC.
func (v observedLimits) pids(lim Limits, j job) LimitStatus {
	st := LimitStatus{Asked: fmt.Sprintf("%d processes", lim.Pids), Value: float64(lim.Pids)}
	switch {
	case v.cg != nil && v.cg.PidsLimit != nil && *v.cg.PidsLimit == lim.Pids:
		st.Strength = Held
		st.How = fmt.Sprintf("cgroup pids.max=%d for the whole container, threads included (seen from inside)", *v.cg.PidsLimit)
	case !j.cgroups.Pids:
		var seen string
		st.Strength, seen = v.rlimitFallback("nproc", lim.Pids)
		st.How = fmt.Sprintf("no cgroup pids ceiling on this host; instead RLIMIT_NPROC=%d for the sandbox user (%s), which counts its processes and threads across all of this user's sandboxes at once", lim.Pids, seen)
	case v.cg == nil:
		st.Strength = Held
		st.How = "cgroup pids ceiling" + unseenLimit
	default:
		st.Strength = NotHeld
		st.How = fmt.Sprintf("asked the service for a pids ceiling but the container shows %s", showLimit(v.cg.PidsLimit))
	}
	return st
}

func cgroupName(cg *CgroupObserved) string {
	if cg == nil || cg.Version == 0 {
		return "v1"
	}
	return fmt.Sprintf("v%d", cg.Version)
}

func seenSuffix(seen, reported bool) string {
	switch {
	case seen:
		return ", seen from inside"
	case reported:
		return ", NOT seen from inside"
	}
	return ", not confirmed from inside"
}

func showLimit(v *int64) string {
	if v == nil {
		return "no limit"
	}
	return fmt.Sprint(*v)
}

func plural(b bool) string {
	if b {
		return "s"
	}
	return ""
}
