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
	"slices"
	"strings"
	"time"
)

// Check is one probe of the self-test.
type Check struct {
	// Name is the guarantee attacked ("filesystem", "network", …), with
	// "session: " before it for the session path.
	Name string `json:"name"`
	// Guarantee is the guarantee alone; Path is where code ran for it
	// (pathOneShot, pathSession; empty for checks of the host).
	Guarantee string   `json:"guarantee"`
	Path      string   `json:"path,omitempty"`
	Strength  Strength `json:"strength"`
	// Detail says what was tried and what was seen.
	Detail string `json:"detail"`
}

// DoctorReport is the self-test's verdict.
type DoctorReport struct {
	// OK is true when no guarantee is "not held".
	OK      bool   `json:"ok"`
	Summary string `json:"summary"`
	Host    *Host  `json:"host,omitempty"`
	// TeamHost names the team host the self-test ran on
	// (user@host[:port]), "" for this machine.
	TeamHost string `json:"team_host,omitempty"`
	Image    string `json:"image"`
	Runtime  string `json:"runtime,omitempty"`
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
	rep := &DoctorReport{Host: &host, Image: e.image, TeamHost: e.TeamHost()}
	add := func(name string, s Strength, format string, a ...any) {
		if ctx.Err() != nil {
			return // cut short by the caller, not a finding about the sandbox
		}
		rep.Checks = append(rep.Checks, Check{Name: name, Guarantee: name, Strength: s, Detail: fmt.Sprintf(format, a...)})
	}
	step := func(name string) {
		if progress != nil {
			progress(name)
		}
	}
	finishReport := func() DoctorReport { return e.concludeDoctor(ctx, rep, start) }
	// The user's own sandboxes (a Code Interpreter session left open) are
	// this process's too: only what the self-test adds can be its leftover.
	before, _ := e.ownContainers(ctx)

	step("bounds")
	e.boundsChecks(add)
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

	if err := e.runDoctorProbes(ctx, rep, step); err != nil {
		add("doctor", NotHeld, "cannot create a work folder: %v", err)
		return finishReport()
	}
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
	after, err := e.ownContainers(ctx)
	left := 0
	for id := range after {
		if !before[id] {
			left++
		}
	}
	switch {
	case err != nil:
		add("leftovers", NotHeld, "cannot list containers: %v", err)
	case left > 0:
		add("leftovers", NotHeld, "%d sandbox containers of this self-test still exist", left)
	default:
		add("leftovers", Held, "every sandbox of this self-test was removed")
	}
	return finishReport()
}

// runDoctorProbes runs each probe on each path it applies to (a one-shot run,
// a session's cell) in a work folder of its own, with an input file and a
// host secret the probes must not reach; an error says the folder could
// not be made.
func (e *Engine) runDoctorProbes(ctx context.Context, rep *DoctorReport, step func(string)) error {
	work, err := os.MkdirTemp("", "rehome-doctor-")
	if err != nil {
		return err
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

	for _, path := range bothPaths {
		for _, pr := range doctorProbes {
			if !slices.Contains(pr.paths, path) || ctx.Err() != nil {
				continue
			}
			label := pr.name
			if path == pathSession {
				label = "session: " + pr.name
			}
			step(label)
			env := &probeEnv{ctx: ctx, e: e, path: path, work: work, secret: secret, token: token,
				run: e.doctorRunner(ctx, path, pr.name, work, input)}
			st, detail, err := pr.check(env)
			if err != nil {
				st, detail = NotHeld, fmt.Sprintf("the probe could not run: %v", err)
			}
			if ctx.Err() == nil {
				rep.Checks = append(rep.Checks, Check{Name: label, Guarantee: pr.name, Path: path, Strength: st, Detail: detail})
			}
		}
	}
	return nil
}

// concludeDoctor sums the checks up: OK, the summary in words (or that
// the self-test was interrupted), and a team host's rootless notes.
func (e *Engine) concludeDoctor(ctx context.Context, rep *DoctorReport, start time.Time) DoctorReport {
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
	where := "here"
	if rep.TeamHost != "" {
		where = "on the team host " + rep.TeamHost
	}
	switch {
	case ctx.Err() != nil:
		rep.OK, rep.Interrupted = false, true
		rep.Summary = fmt.Sprintf("Interrupted after %d checks: the self-test did not finish, so it says nothing of the rest; run it again to the end.", len(rep.Checks))
	case !rep.OK:
		rep.Summary = "NOT SAFE: these guarantees do not hold " + where + ": " + strings.Join(bad, ", ") + "."
	case len(weak) > 0:
		rep.Summary = "Every guarantee holds " + where + ", some by weaker means (" + strings.Join(weak, ", ") + "): see their details."
	default:
		rep.Summary = "Every guarantee holds " + where + "."
	}
	if rep.TeamHost != "" {
		if h := e.Host(); h.Rootless && h.CgroupVersion != "v2" {
			rep.Notes = append(rep.Notes, fmt.Sprintf("Podman on %s is rootless on cgroup %s: the kernel holds no memory, pids or CPU ceiling there; rehome's own fallbacks hold them (weaker, see each check).", rep.TeamHost, h.CgroupVersion))
		} else if h.Rootless {
			rep.Notes = append(rep.Notes, fmt.Sprintf("Podman on %s is rootless (cgroup %s): the ceilings systemd delegated hold there.", rep.TeamHost, h.CgroupVersion))
		}
	}
	return *rep
}

// doctorRunner runs the self-test's probe name on path: a one-shot run, or
// a cell of a fresh session (stopped after it).
func (e *Engine) doctorRunner(ctx context.Context, path, name, work, input string) func(code string, lim Limits, withInput bool) (*Result, error) {
	n := 0
	return func(code string, lim Limits, withInput bool) (*Result, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n++
		in := ""
		if withInput {
			in = input
		}
		folder := filepath.Join(work, fmt.Sprintf("%s-%s-%d", path, strings.ReplaceAll(name, " ", "-"), n))
		if path == pathOneShot {
			// The timeout probe attacks the kill from outside itself.
			res, err := e.Run(ctx, RunRequest{Code: code, Limits: lim, InputPath: in, OutputDir: folder, HardKillOnly: name == "timeout"}, nil)
			if err == nil && ctx.Err() != nil {
				// Stopped by the caller: the probe says nothing, and no more
				// Podman calls (the bindings retry a failed call for 0.6 s).
				return nil, ctx.Err()
			}
			return res, err
		}
		s, err := e.StartSession(ctx, SessionRequest{InputPath: in, Limits: lim, Dir: filepath.Join(folder, "session"), Preload: []string{}})
		if err != nil {
			return nil, err
		}
		defer s.Stop(context.WithoutCancel(ctx))
		cell, err := s.Exec(ctx, code, lim.Timeout, nil)
		if err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return &cell.Result, nil
	}
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
