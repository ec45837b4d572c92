package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"rehome/backend/bytesize"
	"rehome/backend/core"
)

// cmdRun is `rehome run`: one script in a fresh sandbox against one file,
// ChatGPT Code Interpreter style. The code's output streams to the terminal
// as it comes (or the whole result prints as JSON); outputs are saved, and
// the run is stored in the runs bucket.
func cmdRun(env *cliEnv, args []string) int {
	fs := env.flags("run", "run --file PATH [--timeout 30s] [--memory 512MiB] [--cpus 1] [--pids 128] [--out DIR] [--json] SCRIPT.py|-")
	file := fs.String("file", "", "the `file` the code works on, seen read-only at /mnt/data/<name>")
	timeout := fs.Duration("timeout", core.DefaultLimits.Timeout, "wall-clock `limit`; the whole sandbox is killed after it (default: as saved in Settings)")
	memory := fs.String("memory", "512MiB", "memory `ceiling` (512MiB, 2GiB, 2g; GB is 10⁹ bytes; default: as saved in Settings)")
	cpus := fs.Float64("cpus", core.DefaultLimits.CPUs, "CPU `cores` the code may use (default: as saved in Settings)")
	pids := fs.Int64("pids", core.DefaultLimits.Pids, "most `processes` and threads at once (default: as saved in Settings)")
	outDir := fs.String("out", "", "`folder` for output files and plots (default: the run's folder in the data directory)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	env.addPodmanFlags(fs)
	if code, ok := env.parseArg(fs, args, "run takes one script (a .py file, or - for stdin; see `rehome run --help`)"); !ok {
		return code
	}
	// The flags given override the limits saved in Settings, field by
	// field, as a request of the window does.
	lim, err := givenLimits(fs, *timeout, *memory, *cpus, *pids)
	if err != nil {
		return env.usage("--memory: %v", err)
	}
	code, err := readScript(env, fs.Arg(0))
	if err != nil {
		return env.fail(err)
	}

	// The database is opened only for the moments a record is read or
	// written, so that many runs can share one data folder. A window or
	// `rehome serve` holds it for as long as it is open: say so now,
	// before the run, rather than lose its record after.
	c, err := env.core(core.Options{Brief: true, StoreTimeout: runProbeWait})
	if err != nil {
		return env.fail(err)
	}
	runs := c.Runs()
	// The same safe range, and the same words, as Settings.
	if lim, err = runs.Limits(lim); err != nil {
		return env.failLimits(err, "%v")
	}
	ctx, cancel := env.interruptible()
	defer cancel()
	if _, err := c.Engine(ctx); err != nil {
		return env.fail(err)
	}
	if err := loadPackagedImage(ctx, env, c, *asJSON); err != nil {
		return env.fail(err)
	}
	req := core.RunRequest{Code: code, InputPath: env.path(*file), Limits: lim, OutputDir: env.path(*outDir)}
	// On a terminal the code's output is shown, never obeyed (term.go).
	show := newShower(env)
	res, err := runs.Run(ctx, req, "cli", runProgress(env, show, *asJSON))
	switch {
	case res == nil && (errors.Is(err, core.ErrImageMissing) || errors.Is(err, core.ErrPodmanMissing)):
		return env.fail(err)
	case res == nil:
		return env.fail(fmt.Errorf("the run could not start: %w", err))
	case err != nil:
		fmt.Fprintf(env.stderr, "rehome: %v (the result is printed but not kept)\n", err)
	}
	if *asJSON {
		env.json(res)
	} else {
		show.flush()
		printDisplays(show, res.Displays, 0) // the last expression's value, display()
		printRunSummary(env, res, show.safe)
	}
	if env.interrupted(nil) {
		return env.fail(ctx.Err()) // Ctrl-C: the run is kept as stopped
	}
	if res.ExitCode != 0 || res.TimedOut || res.OOMKilled {
		return exitFail
	}
	return exitOK
}

// givenLimits are the limits the flags given set, field by field (zero:
// as saved in Settings); an error is --memory's.
func givenLimits(fs *flag.FlagSet, timeout time.Duration, memory string, cpus float64, pids int64) (core.Limits, error) {
	var lim core.Limits
	var badMemory error
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "timeout":
			lim.Timeout = timeout
		case "memory":
			lim.Memory, badMemory = bytesize.Parse(memory)
		case "cpus":
			lim.CPUs = cpus
		case "pids":
			lim.Pids = pids
		}
	})
	return lim, badMemory
}

// runProgress shows a run's steps: what the code prints, through show
// (on a terminal: shown, never obeyed), and the image's loading; nothing
// with --json.
func runProgress(env *cliEnv, show *shower, asJSON bool) func(core.Progress) {
	return func(p core.Progress) {
		switch {
		case asJSON:
		case p.Stage == "output" && p.Stream == "stdout":
			show.stdout(p.Text)
		case p.Stage == "output":
			show.stderr(p.Text)
		case p.Stage == "image" && p.Message != "":
			fmt.Fprintf(env.stderr, "rehome: %s\n", p.Message)
		}
	}
}

// runProbeWait is how long `rehome run` waits on the database's lock
// before it says who holds it: other runs hold it for a few milliseconds
// each; a window or `rehome serve` for as long as it is open.
const runProbeWait = 3 * time.Second

// readScript reads the script from a file or, for "-", stdin.
func readScript(env *cliEnv, name string) (string, error) {
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(io.LimitReader(env.stdin, core.MaxScriptSize+1))
	} else {
		var f *os.File
		if f, err = os.Open(env.path(name)); err == nil {
			data, err = io.ReadAll(io.LimitReader(f, core.MaxScriptSize+1))
			f.Close()
		}
	}
	if err != nil {
		return "", fmt.Errorf("read the script: %w", err)
	}
	if len(data) > core.MaxScriptSize {
		return "", fmt.Errorf("the script is over %s: the sandbox takes smaller scripts", bytesize.Format(core.MaxScriptSize))
	}
	return string(data), nil
}

// shower writes the code's output to the terminal, neutralised where it
// is one.
type shower struct {
	env            *cliEnv
	outTTY, errTTY bool
	out, err       termFilter
}

func newShower(env *cliEnv) *shower {
	return &shower{env: env, outTTY: isTerminal(env.stdout), errTTY: isTerminal(env.stderr)}
}

func (s *shower) stdout(text string) {
	if s.outTTY {
		text = s.out.filter(text)
	}
	io.WriteString(s.env.stdout, text)
}

func (s *shower) stderr(text string) {
	if s.errTTY {
		text = s.err.filter(text)
	}
	io.WriteString(s.env.stderr, text)
}

func (s *shower) flush() {
	if s.outTTY {
		io.WriteString(s.env.stdout, s.out.flush())
	}
	if s.errTTY {
		io.WriteString(s.env.stderr, s.err.flush())
	}
}

// safe neutralises a name the code chose (an output file's) for stderr.
func (s *shower) safe(name string) string {
	if s.errTTY {
		return termSafe(name)
	}
	return name
}

func printRunSummary(env *cliEnv, res *core.RunResult, safe func(string) string) {
	w := env.stderr
	if len(res.Stdout) > 0 && !strings.HasSuffix(res.Stdout, "\n") {
		fmt.Fprintln(env.stdout)
	}
	fmt.Fprintf(w, "rehome: %s\n", res.Summary)
	for _, n := range res.Notes {
		fmt.Fprintf(w, "rehome: %s\n", n)
	}
	for _, f := range res.Files {
		fmt.Fprintf(w, "rehome: %-5s %s (%s) → %s\n", f.Kind, safe(f.Name), bytesize.Format(f.Size), safe(f.Path))
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "rehome: refused %s: %s\n", safe(s.Name), safe(s.Reason))
	}
	var weak []string
	for name, l := range map[string]core.LimitStatus{"memory": res.Limits.Memory, "pids": res.Limits.Pids, "cpu": res.Limits.CPU} {
		if l.Strength != core.Held {
			weak = append(weak, fmt.Sprintf("%s %s (%s)", name, l.Strength, l.How))
		}
	}
	for _, s := range weak {
		fmt.Fprintf(w, "rehome: limit %s\n", s)
	}
	fmt.Fprintf(w, "rehome: run %s, %s\n", res.ID, time.Duration(res.DurationMS)*time.Millisecond)
}
