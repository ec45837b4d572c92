package cli

// A session's start: session start resolves its limits and leaves a relay
// process (session relay) that starts the session and holds it for the
// later commands (session.go).

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"rehome/backend/bytesize"
	"rehome/backend/core"
)

func cmdSessionStart(env *cliEnv, args []string) int {
	fs := env.flags("session start", "session start --file PATH [--timeout 30s] [--idle 30m] [--memory 1GiB] [--cpus 1] [--pids 128] [--json]")
	sf := addSessionFlags(env, fs)
	asJSON := fs.Bool("json", false, "print the session as JSON")
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	// The flags given win over the limits saved in Settings, field by
	// field, as for `rehome run`; the relay gets what is resolved.
	given, err := sf.given(fs)
	if err != nil {
		return env.usage("%v", err)
	}
	c, err := env.core(core.Options{Brief: true, StoreTimeout: runProbeWait})
	if err != nil {
		return env.fail(err)
	}
	lim, err := c.Sessions().Limits(given)
	if err != nil {
		return env.failLimits(err, "%v")
	}
	dir, err := env.dir()
	if err != nil {
		return env.fail(err)
	}
	id := core.NewRunID()
	sdir := core.SessionDir(dir, id)
	if err := os.MkdirAll(sdir, 0o700); err != nil {
		return env.fail(fmt.Errorf("create the session's folder: %w", err))
	}
	// The session outlives this command: a relay process of its own holds
	// it (see sandbox/relay.go) and says on its stdout when it runs.
	self, err := os.Executable()
	if err != nil {
		return env.fail(err)
	}
	rargs := append([]string{"session", "relay", "--dir", sdir, "--id", id}, sf.args(lim)...)
	cmd := exec.Command(self, rargs...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	logf, err := os.OpenFile(filepath.Join(sdir, "relay.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return env.fail(err)
	}
	defer logf.Close()
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		return env.fail(err)
	}
	if err := cmd.Start(); err != nil {
		return env.fail(fmt.Errorf("start the session's relay: %w", err))
	}
	line, err := bufio.NewReader(out).ReadBytes('\n')
	var st struct {
		Error string            `json:"error"`
		Info  *core.SessionInfo `json:"info"`
	}
	if err != nil || json.Unmarshal(line, &st) != nil || (st.Error == "" && st.Info == nil) {
		cmd.Process.Kill()
		cmd.Wait()
		return env.fail(fmt.Errorf("the session could not start (see %s)", filepath.Join(sdir, "relay.log")))
	}
	if st.Error != "" {
		cmd.Wait()
		os.RemoveAll(sdir)
		return env.fail(fmt.Errorf("the session could not start: %s", st.Error))
	}
	cmd.Process.Release()
	if *asJSON {
		return env.json(st.Info)
	}
	fmt.Fprintln(env.stdout, id)
	return exitOK
}

// sessionFlags are the limits a session starts with.
type sessionFlags struct {
	file    *string
	timeout *time.Duration
	idle    *time.Duration
	memory  *string
	cpus    *float64
	pids    *int64
	pf      podmanFlags
}

func addSessionFlags(env *cliEnv, fs *flag.FlagSet) sessionFlags {
	return sessionFlags{
		file:    fs.String("file", "", "the `file` the cells work on, seen read-only at /mnt/data/<name>"),
		timeout: fs.Duration("timeout", core.DefaultLimits.Timeout, "each cell's time `limit` (then KeyboardInterrupt; default: as saved in Settings)"),
		idle:    fs.Duration("idle", core.DefaultIdleTimeout, "end the session after this `time` without a cell"),
		memory:  fs.String("memory", "1GiB", "memory `ceiling` of the whole session (1GiB, 512m; GB is 10⁹ bytes; default: as saved in Settings)"),
		cpus:    fs.Float64("cpus", core.DefaultLimits.CPUs, "CPU `cores` the session may use (default: as saved in Settings)"),
		pids:    fs.Int64("pids", core.DefaultLimits.Pids, "most `processes` and threads at once (default: as saved in Settings)"),
		pf:      env.addPodmanFlags(fs),
	}
}

// limits are the four limits the relay's flags carry; the core's sessions
// give the others as saved in Settings (stdout, files, /tmp…), and check
// them all.
func (f sessionFlags) limits() (core.Limits, error) {
	mem, err := bytesize.Parse(*f.memory)
	if err != nil {
		return core.Limits{}, fmt.Errorf("--memory: %v", err)
	}
	return core.Limits{Timeout: *f.timeout, Memory: mem, CPUs: *f.cpus, Pids: *f.pids}, nil
}

// given returns the limits of the flags given on the command line (the
// others zero: as saved).
func (f sessionFlags) given(fs *flag.FlagSet) (core.Limits, error) {
	var l core.Limits
	var bad error
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "timeout":
			l.Timeout = *f.timeout
		case "memory":
			if l.Memory, bad = bytesize.Parse(*f.memory); bad != nil {
				bad = fmt.Errorf("--memory: %v", bad)
			}
		case "cpus":
			l.CPUs = *f.cpus
		case "pids":
			l.Pids = *f.pids
		}
	})
	return l, bad
}

// args passes the flags on to the relay, with the limits lim.
func (f sessionFlags) args(lim core.Limits) []string {
	file := f.pf.env.path(*f.file)
	if file != "" {
		if abs, err := filepath.Abs(file); err == nil {
			file = abs
		}
	}
	all, _ := json.Marshal(lim)
	return []string{"--file", file, "--limits", string(all), "--timeout", lim.Timeout.String(), "--idle", f.idle.String(), "--memory", fmt.Sprint(lim.Memory),
		"--cpus", fmt.Sprint(lim.CPUs), "--pids", fmt.Sprint(lim.Pids), "--podman", *f.pf.uri, "--identity", *f.pf.identity, "--runtime", *f.pf.runtime}
}

// cmdSessionRelay is the background process `session start` leaves: it
// starts the session, says so on stdout, and serves it to later commands
// until it ends.
func cmdSessionRelay(env *cliEnv, args []string) int {
	fs := env.flags("session relay", "session relay --dir DIR --id ID [session start's flags] (started by session start)")
	dir := fs.String("dir", "", "the session's `folder`")
	id := fs.String("id", "", "the session's `id`")
	resolved := fs.String("limits", "", "every limit, as `JSON`, resolved by session start (the database is then not opened)")
	sf := addSessionFlags(env, fs)
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	say := func(v any) {
		data, _ := json.Marshal(v)
		env.stdout.Write(append(data, '\n'))
		if f, ok := env.stdout.(*os.File); ok {
			f.Close()
		}
	}
	lim, err := sf.limits()
	if err != nil {
		say(map[string]string{"error": err.Error()})
		return exitUsage
	}
	// Through the core's sessions, as the window starts one, under the
	// limits `session start` resolved: all of them (--limits), without
	// the database, which a window may hold; else the four flags win and
	// the others are as saved.
	req := core.SessionRequest{ID: *id, InputPath: *sf.file, Limits: lim, IdleTimeout: *sf.idle, Dir: *dir}
	start := func(c *core.Core, ctx context.Context) (*core.Session, error) { return c.Sessions().Start(ctx, req) }
	var c *core.Core
	if *resolved != "" {
		if err := json.Unmarshal([]byte(*resolved), &req.Limits); err != nil {
			say(map[string]string{"error": "--limits: " + err.Error()})
			return exitUsage
		}
		c = env.sandboxCore()
		start = func(c *core.Core, ctx context.Context) (*core.Session, error) {
			return c.Sessions().StartResolved(ctx, req)
		}
	} else if c, err = env.core(core.Options{Brief: true, StoreTimeout: runProbeWait}); err != nil {
		say(map[string]string{"error": err.Error()})
		return exitFail
	}
	ctx, cancel := env.interruptible()
	defer cancel()
	defer c.CloseEngine()
	s, err := start(c, ctx)
	if err != nil {
		say(map[string]string{"error": err.Error()})
		return exitFail
	}
	info := s.Info()
	go func() {
		<-ctx.Done() // SIGTERM, Ctrl-C: the session ends with its relay
		s.Stop(context.Background())
	}()
	// The session is announced once its socket takes connections.
	if err := s.ServeRelay(func() { say(map[string]any{"info": info}) }); err != nil {
		fmt.Fprintf(env.stderr, "rehome: session %s: %v\n", info.ID, err)
		s.Stop(context.Background())
		return exitFail
	}
	fmt.Fprintf(env.stderr, "rehome: session %s ended: %s\n", info.ID, s.Ended())
	return exitOK
}
