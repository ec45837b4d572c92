package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"rehome/backend/bytesize"
	"rehome/backend/core"
)

// podmanFlags are the flags every command that talks to Podman takes.
type podmanFlags struct {
	env      *cliEnv
	uri      *string
	identity *string
	runtime  *string
}

// addPodmanFlags adds --podman, --identity and --runtime to fs; the
// command's core starts its engine with them.
func (env *cliEnv) addPodmanFlags(fs *flag.FlagSet) podmanFlags {
	p := podmanFlags{
		env:      env,
		uri:      fs.String("podman", "", "Podman service `URI`: unix:///path or a team host ssh://user@host[:port]/path/to/podman.sock (default: the Sandbox host of Settings, $CONTAINER_HOST, the user's socket, or a private service)"),
		identity: fs.String("identity", "", "ssh private key `FILE` for an ssh:// --podman (default: $CONTAINER_SSHKEY, ~/.ssh/config, the ssh agent, ~/.ssh/id_*)"),
		runtime:  fs.String("runtime", "", "OCI `runtime` (runc, crun; default: probed)"),
	}
	env.pf = &p
	return p
}

// given says whether any of the flags was given.
func (p *podmanFlags) given() bool { return *p.uri != "" || *p.identity != "" || *p.runtime != "" }

// cliServiceLinger is how long a Podman service the CLI started waits,
// idle, for the next command.
const cliServiceLinger = 10 * time.Minute

// options are the engine's options for these flags.
func (p *podmanFlags) options() core.SandboxOptions {
	return core.SandboxOptions{
		// A service rehome starts stays for the next command (each would
		// otherwise pay a start), and ends itself when idle.
		Connect: core.ConnectOptions{URI: *p.uri, Identity: p.env.path(*p.identity), Linger: cliServiceLinger, Passphrase: p.env.askPassphrase},
		Runtime: *p.runtime,
		Trace:   p.env.traceStep,
	}
}

// processStart is when this command started, for traceStep's times.
var processStart = time.Now()

// traceStep logs each step of the sandbox (connect, image check, create,
// start, wait…) with the milliseconds since the command started: `rehome
// -v run` shows where a run's time goes.
func (e *cliEnv) traceStep(step string) {
	if e.log != nil {
		e.log.Debug("sandbox step", "step", step, "ms", float64(time.Since(processStart).Microseconds())/1000)
	}
}

// connect starts the engine for one command under its context, which
// Ctrl-C ends, and hands out the core's sandbox service; done stops the
// engine (a private Podman service that does not linger stops with it).
func (p podmanFlags) connect() (ctx context.Context, sb *core.Sandbox, done func(), err error) {
	ctx, cancel := p.env.interruptible()
	c := p.env.sandboxCore()
	if _, err = c.Engine(ctx); err != nil {
		cancel()
		return ctx, nil, func() {}, err
	}
	return ctx, c.Sandbox(), func() {
		if !p.env.held(c) {
			c.CloseEngine()
		}
		cancel()
	}, nil
}

// withEngine is the preamble of the commands that work on the sandbox's
// engine alone: --podman and --runtime added to fs, args parsed (no
// arguments, or the one that oneArg names), the engine started under a
// context Ctrl-C ends. run does the command's own work; the engine stops
// after it.
func (env *cliEnv) withEngine(fs *flag.FlagSet, args []string, oneArg string, run func(ctx context.Context, sb *core.Sandbox) int) int {
	pf := env.addPodmanFlags(fs)
	if oneArg == "" {
		if code, ok := env.parseNoArgs(fs, args); !ok {
			return code
		}
	} else {
		if code, ok := env.parseArg(fs, args, fmt.Sprintf("%s takes one %s (see `rehome %s --help`)", fs.Name(), oneArg, fs.Name())); !ok {
			return code
		}
	}
	ctx, sb, done, err := pf.connect()
	if err != nil {
		return env.fail(err)
	}
	defer done()
	return run(ctx, sb)
}

func cmdImageBuild(env *cliEnv, args []string) int {
	fs := env.flags("sandbox image build", "sandbox image build [--force] [--json] [--quiet]")
	asJSON := fs.Bool("json", false, "print the build report as JSON")
	quiet := fs.Bool("quiet", false, "do not print the build's output")
	force := fs.Bool("force", false, "build even when the image of this recipe is present or its archive is cached")
	return env.withEngine(fs, args, "", func(ctx context.Context, sb *core.Sandbox) int {
		return imageBuild(ctx, env, sb, *force, *quiet, *asJSON)
	})
}

func imageBuild(ctx context.Context, env *cliEnv, sb *core.Sandbox, force, quiet, asJSON bool) int {
	if !force {
		// The image is versioned by its recipe: present, or archived in
		// the cache, it is the same image, and nothing needs building.
		st, err := sb.ImageStatus(ctx)
		if err != nil {
			return env.fail(err)
		}
		switch {
		case st.Present:
			fmt.Fprintf(env.stdout, "%s is already built (use --force to rebuild)\n", st.Image)
			return exitOK
		case st.ArchivePresent:
			if _, err := env.sandboxCore().LoadImage(ctx, st.Archive, nil); err != nil {
				return env.fail(err)
			}
			fmt.Fprintf(env.stdout, "%s loaded from the cached archive %s (use --force to rebuild)\n", st.Image, st.Archive)
			return exitOK
		}
	}
	image, err := sb.Image(ctx)
	if err != nil {
		return env.fail(err)
	}
	fmt.Fprintf(env.stderr, "building %s from Debian packages (about two minutes)…\n", image)
	rep, err := sb.BuildImage(ctx, func(line string) {
		if !quiet {
			fmt.Fprintln(env.stderr, line)
		}
	})
	if err != nil {
		return env.fail(err)
	}
	if asJSON {
		return env.json(rep)
	}
	fmt.Fprintf(env.stdout, "built %s: image %s (root file system %s), built in %s, imported in %s\n",
		rep.Image, bytesize.Format(rep.ImageBytes), bytesize.Format(rep.RootfsBytes),
		rep.BuildTime.Round(time.Second), rep.ImportTime.Round(time.Second))
	fmt.Fprintf(env.stdout, "archive for air-gapped machines: %s (%s); load it there with `rehome sandbox image load FILE`\n",
		rep.Archive, bytesize.Format(rep.ArchiveBytes))
	return exitOK
}

func cmdImageLoad(env *cliEnv, args []string) int {
	fs := env.flags("sandbox image load", "sandbox image load [--json] FILE")
	asJSON := fs.Bool("json", false, "print JSON")
	env.addPodmanFlags(fs)
	if code, ok := env.parseArg(fs, args, "sandbox image load takes one archive file (see `rehome sandbox image load --help`)"); !ok {
		return code
	}
	ctx, cancel := env.interruptible()
	defer cancel()
	c := env.sandboxCore()
	image, err := c.Sandbox().Image(ctx)
	if err != nil {
		return env.fail(err)
	}
	var show func(core.ImageLoad)
	if !*asJSON {
		show = imageProgress(env)
	}
	start := time.Now()
	names, err := c.LoadImage(ctx, env.path(fs.Arg(0)), show)
	if err != nil {
		return env.fail(err)
	}
	if *asJSON {
		return env.json(map[string]any{"loaded": names, "image": image, "duration_ms": time.Since(start).Milliseconds()})
	}
	fmt.Fprintf(env.stdout, "loaded %s in %s\n", strings.Join(names, ", "), time.Since(start).Round(100*time.Millisecond))
	return exitOK
}

func cmdImageSave(env *cliEnv, args []string) int {
	fs := env.flags("sandbox image save", "sandbox image save FILE")
	return env.withEngine(fs, args, "output file", func(ctx context.Context, sb *core.Sandbox) int {
		if err := sb.SaveImage(ctx, env.path(fs.Arg(0))); err != nil {
			return env.fail(err)
		}
		image, _ := sb.Image(ctx)
		fmt.Fprintf(env.stdout, "saved %s to %s\n", image, fs.Arg(0))
		return exitOK
	})
}

func cmdImageStatus(env *cliEnv, args []string) int {
	fs := env.flags("sandbox image status", "sandbox image status [--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	return env.withEngine(fs, args, "", func(ctx context.Context, sb *core.Sandbox) int {
		return imageStatus(ctx, env, sb, *asJSON)
	})
}

func imageStatus(ctx context.Context, env *cliEnv, sb *core.Sandbox, asJSON bool) int {
	st, err := sb.ImageStatus(ctx)
	if err != nil {
		return env.fail(err)
	}
	if asJSON {
		env.json(st)
	} else {
		// The same verdict as `rehome doctor` (ImageStatus.State).
		fmt.Fprintf(env.stdout, "image    %s: %s\n", st.Image, st.Summary())
		arch := "none"
		if st.ArchivePresent {
			arch = bytesize.Format(st.ArchiveSize)
		}
		fmt.Fprintf(env.stdout, "archive  %s: %s\n", st.Archive, arch)
		if len(st.Stale) > 0 {
			fmt.Fprintf(env.stdout, "stale    %s (remove with `rehome sandbox clean`)\n", strings.Join(st.Stale, ", "))
		}
		if st.Fix != "" && !st.Ready() {
			fmt.Fprintf(env.stdout, "fix      %s\n", st.Fix)
		}
	}
	// Exit 1 only when a run could not start: an image that loads on
	// first use is ready, as doctor says.
	if !st.Ready() {
		return exitFail
	}
	return exitOK
}

func cmdSandboxClean(env *cliEnv, args []string) int {
	fs := env.flags("sandbox clean", "sandbox clean")
	return env.withEngine(fs, args, "", func(ctx context.Context, sb *core.Sandbox) int {
		n, removed, err := sb.Clean(ctx)
		if err != nil {
			return env.fail(err)
		}
		for _, r := range removed {
			fmt.Fprintf(env.stdout, "removed %s\n", r)
		}
		fmt.Fprintf(env.stdout, "removed %d leftover sandbox(es) and %d old image(s) or archive(s)\n", n, len(removed))
		return exitOK
	})
}

func cmdSandboxDoctor(env *cliEnv, args []string) int {
	fs := env.flags("sandbox doctor", "sandbox doctor [--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	pf := env.addPodmanFlags(fs)
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	ctx, sb, done, err := pf.connect()
	if err != nil {
		rep := core.NoPodmanReport(err)
		if *asJSON {
			env.json(rep)
		} else {
			printDoctor(env, rep)
		}
		return exitFail
	}
	defer done()
	// Kept for the checklist's last item, for the window and `rehome
	// doctor` too (core.Sandbox.Doctor).
	rep := sb.Doctor(ctx, func(check string) {
		if !*asJSON {
			fmt.Fprintf(env.stderr, "checking %s…\n", check)
		}
	})
	if *asJSON {
		env.json(rep)
	} else {
		printDoctor(env, rep)
	}
	switch {
	case rep.Interrupted:
		return env.fail(ctx.Err())
	case !rep.OK:
		return exitFail
	}
	return exitOK
}

func printDoctor(env *cliEnv, rep core.DoctorReport) {
	if rep.Host != nil {
		h := rep.Host
		mode := "rootful"
		if h.Rootless {
			mode = "rootless"
		}
		if rep.TeamHost != "" {
			fmt.Fprintf(env.stdout, "team host %s\n", rep.TeamHost)
		}
		fmt.Fprintf(env.stdout, "podman %s (%s, cgroup %s, %s), runtime %s, image %s\n",
			h.PodmanVersion, mode, h.CgroupVersion, h.ServiceURI, rep.Runtime, rep.Image)
	}
	for _, c := range rep.Checks {
		fmt.Fprintf(env.stdout, "%-9s %-13s %s\n", c.Strength, c.Name, c.Detail)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(env.stdout, "note      %s\n", n)
	}
	fmt.Fprintln(env.stdout, rep.Summary)
}
