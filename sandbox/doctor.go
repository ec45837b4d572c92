package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/containers/podman/v4/pkg/bindings/containers"

	"rehome/backend/bytesize"
)

// Check is one probe of the self-test.
type Check struct {
	// Name is the guarantee attacked ("filesystem", "network", …).
	Name     string   `json:"name"`
	Strength Strength `json:"strength"`
	// Detail says what was tried and what was seen.
	Detail string `json:"detail"`
}

// DoctorReport is the self-test's verdict.
type DoctorReport struct {
	// OK is true when no guarantee is "not held".
	OK      bool   `json:"ok"`
	Summary string `json:"summary"`
	Host    *Host  `json:"host,omitempty"`
	Image   string `json:"image"`
	Runtime string `json:"runtime,omitempty"`
	// RuntimeProbes are the runtimes tried, when they were probed now.
	RuntimeProbes []RuntimeProbe `json:"runtime_probes,omitempty"`
	Checks        []Check        `json:"checks"`
	// Notes are findings that are not guarantees (speed, configuration).
	Notes      []string `json:"notes,omitempty"`
	DurationMS int64    `json:"duration_ms"`
	// Interrupted is true when the caller's context ended (Ctrl-C, the
	// window closed) before every check ran: Checks holds those that
	// finished, and OK is false, since the rest were never tried.
	Interrupted bool `json:"interrupted,omitempty"`
}

// NoPodmanReport is the self-test's report when Podman cannot be reached:
// nothing holds, and the report says how to fix that.
func NoPodmanReport(err error) DoctorReport {
	return DoctorReport{
		Image:   ImageRef(),
		Summary: "The sandbox cannot run: " + err.Error(),
		Checks:  []Check{{Name: "podman", Strength: NotHeld, Detail: err.Error()}},
	}
}

// Doctor attacks each guarantee with a probe run and reports which hold.
// progress (may be nil) names each check as it starts.
func (e *Engine) Doctor(ctx context.Context, progress func(check string)) DoctorReport {
	start := time.Now()
	host := e.Host()
	rep := DoctorReport{Host: &host, Image: e.image}
	add := func(name string, s Strength, format string, a ...any) {
		if ctx.Err() != nil {
			return // cut short by the caller, not a finding about the sandbox
		}
		rep.Checks = append(rep.Checks, Check{Name: name, Strength: s, Detail: fmt.Sprintf(format, a...)})
	}
	step := func(name string) {
		if progress != nil {
			progress(name)
		}
	}
	finishReport := func() DoctorReport {
		rep.DurationMS = time.Since(start).Milliseconds()
		rep.OK = true
		var weak, bad []string
		for _, c := range rep.Checks {
			switch c.Strength {
			case NotHeld:
				rep.OK = false
				bad = append(bad, c.Name)
			case Weaker:
				weak = append(weak, c.Name)
			}
		}
		switch {
		case ctx.Err() != nil:
			rep.OK, rep.Interrupted = false, true
			rep.Summary = fmt.Sprintf("Interrupted after %d checks: the self-test did not finish, so it says nothing of the rest; run it again to the end.", len(rep.Checks))
		case !rep.OK:
			rep.Summary = "NOT SAFE: these guarantees do not hold here: " + strings.Join(bad, ", ") + "."
		case len(weak) > 0:
			rep.Summary = "Every guarantee holds, some by weaker means on this host (" + strings.Join(weak, ", ") + "): see their details."
		default:
			rep.Summary = "Every guarantee holds."
		}
		return rep
	}

	step("image")
	if err := e.EnsureImage(ctx, nil); err != nil {
		add("image", NotHeld, "%v", err)
		return finishReport()
	}
	add("image", Held, "%s is ready", e.image)
	step("runtime")
	rt, err := e.Runtime(ctx)
	e.mu.Lock()
	rep.RuntimeProbes = e.probed
	e.mu.Unlock()
	if err != nil {
		add("runtime", NotHeld, "%v", err)
		return finishReport()
	}
	rep.Runtime = rt
	add("runtime", Held, "%s starts hardened containers here", rt)

	work, err := os.MkdirTemp("", "rehome-doctor-")
	if err != nil {
		add("doctor", NotHeld, "cannot create a work folder: %v", err)
		return finishReport()
	}
	defer os.RemoveAll(work)
	if e.Host().Rootless {
		os.Chmod(work, 0o755)
	}
	token := randomToken()
	input := filepath.Join(work, "input data.csv")
	secret := filepath.Join(work, "secret-"+token+".txt")
	os.WriteFile(input, []byte("a,b\n1,2\n"), 0o644)
	os.WriteFile(secret, []byte("host canary "+token), 0o644)

	run := func(name, code string, lim Limits, withInput bool) (*Result, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		step(name)
		// The timeout probe attacks the kill from outside itself.
		req := RunRequest{Code: code, Limits: lim, OutputDir: filepath.Join(work, "out-"+name), HardKillOnly: name == "timeout"}
		if withInput {
			req.InputPath = input
		}
		res, err := e.Run(ctx, req, nil)
		if err == nil && ctx.Err() != nil {
			// Stopped by the caller: the probe says nothing, and no more
			// Podman calls (the bindings retry a failed call for 0.6 s).
			return nil, ctx.Err()
		}
		return res, err
	}
	probeLimits := Limits{Timeout: 60 * time.Second}

	// 1. File system isolation.
	code := strings.NewReplacer("SECRET", secret, "WORKDIR", work, "TOKEN", token).Replace(probeFilesystem)
	if res, err := run("filesystem", code, probeLimits, true); err != nil {
		add("filesystem", NotHeld, "the probe could not run: %v", err)
	} else {
		add("filesystem", gradeProbe(res), "%s", probeDetail(res, "read the input; could not read a file next to it on the host, write the input, the root file system or any host path; /mnt/data holds only the input; no Podman socket, no capabilities"))
	}

	// 2. No network.
	if res, err := run("network", probeNetwork, probeLimits, false); err != nil {
		add("network", NotHeld, "the probe could not run: %v", err)
	} else {
		add("network", gradeProbe(res), "%s", probeDetail(res, "only the loopback interface; connecting out, resolving names and pip install all fail at once"))
	}

	// 3. Wall-clock timeout that kills everything.
	marker := fmt.Sprintf("%d.%s", 1000+time.Now().UnixNano()%1000, "4242")
	tcode := strings.ReplaceAll(probeTimeout, "MARKER", marker)
	tl := Limits{Timeout: 3 * time.Second}
	if res, err := run("timeout", tcode, tl, false); err != nil {
		add("timeout", NotHeld, "the probe could not run: %v", err)
	} else {
		left := hostProcessesWith("sleep " + marker)
		gone := !e.containerExists(ctx, res.ID)
		switch {
		case !res.TimedOut:
			add("timeout", NotHeld, "a script that ignores SIGTERM, double-forks and sleeps in C was not stopped at %s (exit %d)", tl.Timeout, res.ExitCode)
		case left > 0 || !gone:
			add("timeout", NotHeld, "stopped at %s, but %d of its processes survive on the host and the container exists=%t", tl.Timeout, left, !gone)
		default:
			add("timeout", Held, "a script that ignores SIGTERM, double-forks a sleeper and sleeps in C was killed whole at %s (after %d ms), no process of it left on the host, the container removed", tl.Timeout, res.DurationMS)
		}
	}

	// 4. Memory, pids and CPU ceilings.
	ml := Limits{Timeout: 60 * time.Second, Memory: 128 * MiB}
	if res, err := run("memory", probeMemory, ml, false); err != nil {
		add("memory", NotHeld, "the probe could not run: %v", err)
	} else {
		lim := res.Limits.Memory
		switch {
		case strings.Contains(res.Stdout, "ALLOCATED"):
			add("memory", NotHeld, "the code allocated and touched 512 MiB under a 128 MiB ceiling (%s)", lim.How)
		case res.OOMKilled && lim.Strength == Held:
			add("memory", Held, "allocating past 128 MiB got the code killed by the kernel (%s); reported as oom_killed", lim.How)
		case res.OOMKilled || strings.Contains(res.Stderr, "MemoryError"):
			add("memory", Weaker, "allocating past 128 MiB was stopped (%s): %s", res.Summary, lim.How)
		default:
			add("memory", NotHeld, "unclear outcome: %s (%s)", res.Summary, lim.How)
		}
	}
	pl := Limits{Timeout: 60 * time.Second, Pids: 32}
	if res, err := run("pids", probePids, pl, false); err != nil {
		add("pids", NotHeld, "the probe could not run: %v", err)
	} else {
		n := parseCount(res.Stdout, "FORKED")
		lim := res.Limits.Pids
		switch {
		case n < 0:
			add("pids", NotHeld, "the fork probe did not report (%s)", res.Summary)
		case n >= 64:
			add("pids", NotHeld, "the code started %d processes under a ceiling of 32 (%s)", n, lim.How)
		default:
			add("pids", lim.Strength, "forking 64 processes stopped at %d under a ceiling of 32: %s", n, lim.How)
		}
		add("cpu", res.Limits.CPU.Strength, "%s", res.Limits.CPU.How)
	}

	// 5. The result channel: floods and hostile outputs.
	fl := Limits{Timeout: 60 * time.Second, StdoutMax: 64 * KiB, StderrMax: 64 * KiB}
	if res, err := run("stdout flood", probeFlood, fl, false); err != nil {
		add("stdout flood", NotHeld, "the probe could not run: %v", err)
	} else if res.StdoutTruncated && len(res.Stdout) <= int(fl.StdoutMax) && res.ExitCode == 0 {
		add("stdout flood", Held, "200 MiB printed: the first %s kept, the rest counted and dropped, nothing written to disk (%d ms)", bytesize.Format(int64(len(res.Stdout))), res.DurationMS)
	} else {
		add("stdout flood", NotHeld, "200 MiB printed: kept %s, truncated=%t, %s", bytesize.Format(int64(len(res.Stdout))), res.StdoutTruncated, res.Summary)
	}
	ol := Limits{Timeout: 60 * time.Second, OutputFiles: 8, OutputBytes: 4 * MiB}
	if res, err := run("outputs", probeOutputs, ol, true); err != nil {
		add("outputs", NotHeld, "the probe could not run: %v", err)
	} else {
		add("outputs", gradeOutputs(res, ol), "%s", outputsDetail(res))
	}

	// Privileges, identity, environment, as the code saw them.
	if res, err := run("privileges", probePrivileges, probeLimits, false); err != nil {
		add("privileges", NotHeld, "the probe could not run: %v", err)
	} else {
		add("privileges", gradeProbe(res), "%s", probeDetail(res, "no capabilities, no-new-privileges, seccomp filter, user 10001, host name \"sandbox\", only rehome's environment variables"))
	}

	// Kernel surfaces and host facts (keyring, user namespaces, sockets,
	// PID 1, mount table, hosts, resolver).
	e.attackKernel(ctx, run, add, work, token)
	if ctx.Err() != nil {
		// Cut short: each probe's run removed its sandbox on the way out.
		return finishReport()
	}

	// Findings that are not guarantees.
	step("storage")
	if sf, err := e.StorageFinding(ctx); err == nil && sf.State != "ok" {
		rep.Notes = append(rep.Notes, sf.Detail)
	}
	for _, p := range rep.RuntimeProbes {
		if !p.OK {
			rep.Notes = append(rep.Notes, fmt.Sprintf("The %s service with %s could not start a sandbox (%s); rehome uses a service of its own with a runtime that can.", p.Service, p.Runtime, p.Error))
		}
	}

	// Nothing left behind.
	step("leftovers")
	list, err := containers.List(e.api(ctx), new(containers.ListOptions).WithAll(true).
		WithFilters(map[string][]string{"label": {LabelOwner + "=" + e.owner}}))
	switch {
	case err != nil:
		add("leftovers", NotHeld, "cannot list containers: %v", err)
	case len(list) > 0:
		add("leftovers", NotHeld, "%d sandbox containers of this self-test still exist", len(list))
	default:
		add("leftovers", Held, "every sandbox of this self-test was removed")
	}
	return finishReport()
}

func (e *Engine) containerExists(ctx context.Context, runID string) bool {
	list, err := containers.List(e.api(ctx), new(containers.ListOptions).WithAll(true).
		WithFilters(map[string][]string{"label": {LabelRun + "=" + runID}}))
	return err != nil || len(list) > 0
}

// gradeProbe reads a probe's verdict lines: "HELD …", "WEAK …" and
// "BROKEN …" (printed by the probe scripts below).
func gradeProbe(res *Result) Strength {
	switch {
	case res.ExitCode != 0 || strings.Contains(res.Stdout, "BROKEN"):
		return NotHeld
	case strings.Contains(res.Stdout, "WEAK"):
		return Weaker
	case strings.Contains(res.Stdout, "HELD"):
		return Held
	}
	return NotHeld
}

func probeDetail(res *Result, held string) string {
	var bad []string
	for _, line := range strings.Split(res.Stdout, "\n") {
		if strings.HasPrefix(line, "BROKEN") || strings.HasPrefix(line, "WEAK") {
			bad = append(bad, line)
		}
	}
	if len(bad) > 0 {
		return printable(strings.Join(bad, "; "), 1500)
	}
	if res.ExitCode != 0 {
		return printable(fmt.Sprintf("the probe failed: %s %s", res.Summary, lastLine(res.Stderr)), 1500)
	}
	return held
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func parseCount(out, key string) int {
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, key+" "); ok {
			var n int
			if _, err := fmt.Sscan(rest, &n); err == nil {
				return n
			}
		}
	}
	return -1
}

// gradeOutputs checks what the outputs probe planted against what came
// back: only regular files, inside the output folder, within the caps.
func gradeOutputs(res *Result, lim Limits) Strength {
	if res.ExitCode != 0 {
		return NotHeld
	}
	var total int64
	for _, f := range res.Files {
		fi, err := os.Lstat(f.Path)
		if err != nil || !fi.Mode().IsRegular() || !strings.HasPrefix(f.Path, res.OutputDir+string(os.PathSeparator)) {
			return NotHeld
		}
		total += fi.Size()
	}
	if len(res.Files) > lim.OutputFiles || total > lim.OutputBytes {
		return NotHeld
	}
	reasons := map[string]bool{}
	for _, s := range res.Skipped {
		reasons[s.Name] = true
	}
	for _, want := range []string{"link-to-passwd", "link-to-input", "fifo", "hardlink-b.txt"} {
		if !reasons[want] {
			return NotHeld
		}
	}
	plot := false
	for _, f := range res.Files {
		plot = plot || f.Kind == "plot"
	}
	if !plot {
		return NotHeld
	}
	return Held
}

func outputsDetail(res *Result) string {
	var skipped []string
	for _, s := range res.Skipped {
		skipped = append(skipped, s.Name+" ("+s.Reason+")")
	}
	var kept []string
	for _, f := range res.Files {
		kept = append(kept, f.Name)
	}
	return printable(fmt.Sprintf("kept %d regular files (%s); refused %s", len(res.Files), strings.Join(kept, ", "), strings.Join(skipped, "; ")), 2000)
}

// hostProcessesWith counts processes on this host whose command line
// contains s (the self-test's sleepers carry a unique argument).
func hostProcessesWith(s string) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	self := fmt.Sprint(os.Getpid())
	for _, e := range entries {
		if e.Name() == self || e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if bytes.Contains(bytes.ReplaceAll(data, []byte{0}, []byte{' '}), []byte(s)) {
			n++
		}
	}
	return n
}

func randomToken() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// MarshalJSON keeps an empty check list as [] for the UI.
func (r DoctorReport) MarshalJSON() ([]byte, error) {
	type plain DoctorReport
	if r.Checks == nil {
		r.Checks = []Check{}
	}
	return json.Marshal(plain(r))
}
