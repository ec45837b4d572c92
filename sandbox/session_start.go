package sandbox

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/containers/podman/v4/pkg/bindings/containers"
	"github.com/containers/podman/v4/pkg/specgen"
)

// Starting a session: its checks, its hardened spec (harden.go), its
// container and the supervisor's hello.

// StartSession starts a session's container and waits until its
// supervisor says hello; the kernel then imports req.Preload while the
// caller does other things (a warm start).
func (e *Engine) StartSession(ctx context.Context, req SessionRequest) (*Session, error) {
	if req.Dir == "" {
		return nil, errors.New("a session needs a folder for its record")
	}
	lim := req.Limits.WithDefaults()
	if err := lim.Validate(); err != nil {
		return nil, err
	}
	idle := req.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	preload := req.Preload
	if preload == nil {
		preload = []string{"pandas"}
	}
	id := req.ID
	if id == "" {
		id = NewRunID()
	}
	ins, closeInputs, err := openSessionInputs(req)
	if err != nil {
		return nil, err
	}
	defer closeInputs()
	if err := e.EnsureImage(ctx, nil); err != nil {
		return nil, err
	}
	runtime, err := e.Runtime(ctx)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(req.Dir)
	if err != nil {
		return nil, err
	}
	base := filepath.Dir(abs)
	if err := e.roomForSession(ctx, base, req.MaxSessions); err != nil {
		return nil, err
	}

	j, release, err := e.newJob(ctx, "session", id, true)
	if err != nil {
		return nil, err
	}
	started := false
	defer func() {
		if !started {
			release()
		}
	}()
	j.labels[labelSession] = id
	j.labels[labelSessions] = base
	// The stage goes once the container runs: its mounts hold the files.
	st, staged, _, done, err := e.stageInputs(ins)
	if err != nil {
		return nil, err
	}
	defer st.remove()
	defer done()
	j.setInputs(staged)
	info := e.newSessionInfo(id, lim, idle, req.MaxKeptBytes, runtime, ins)
	if err := os.MkdirAll(filepath.Join(abs, "cells"), 0o700); err != nil {
		return nil, fmt.Errorf("create the session's folder: %w", err)
	}
	info.Dir = abs
	spec, err := sessionSpec(lim, j, idle, preload)
	if err != nil {
		return nil, err
	}
	s, err := e.launchSession(ctx, &Session{e: e, info: info, lim: lim, release: release}, j, spec)
	if err != nil {
		return nil, err
	}
	started = true
	return s, nil
}

// openSessionInputs opens a session's input files, one of each name (the
// same file twice counts once); closeAll closes every one opened.
func openSessionInputs(req SessionRequest) (ins []*input, closeAll func(), err error) {
	var opened []*input
	closeAll = func() {
		for _, in := range opened {
			in.close()
		}
	}
	seen := map[string]string{}
	for _, p := range append([]string{req.InputPath}, req.InputPaths...) {
		if p == "" {
			continue
		}
		in, err := openInput(p)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		opened = append(opened, in)
		if other, dup := seen[in.name]; dup {
			if other == in.hostPath {
				continue // the same file twice
			}
			closeAll()
			return nil, nil, fmt.Errorf("two files are named %s (%s and %s): /mnt/data holds one of each name; rename one", in.name, other, in.hostPath)
		}
		seen[in.name] = in.hostPath
		ins = append(ins, in)
	}
	return ins, closeAll, nil
}

// roomForSession sweeps the kept records under base and says
// ErrTooManySessions when maxN (0: the default) of its sessions run.
func (e *Engine) roomForSession(ctx context.Context, base string, maxN int) error {
	if maxN <= 0 {
		maxN = defaultMaxSessions
	}
	sweepKept(base)
	running, err := e.runningSessions(ctx, base)
	if err != nil {
		return err
	}
	if len(running) >= maxN {
		ids := slices.Sorted(maps.Keys(running))
		return fmt.Errorf("%w: %d of at most %d sessions of %s are running already (%s): stop one with `rehome session stop ID` (`rehome session list` shows them) or close its file", ErrTooManySessions, len(running), maxN, base, strings.Join(ids, ", "))
	}
	return nil
}

// newSessionInfo is a new session's record: its limits, image and
// runtime, and where its inputs are (the first as Input).
func (e *Engine) newSessionInfo(id string, lim Limits, idle time.Duration, keepMax int64, runtime string, ins []*input) SessionInfo {
	if keepMax <= 0 {
		keepMax = defaultSessionKeep
	}
	info := SessionInfo{Schema: sessionSchema, ID: id, Limits: lim, IdleTimeout: idle, MaxKeptBytes: keepMax, Created: time.Now().UTC(),
		Image: e.image, Runtime: runtime, Rootless: e.Host().Rootless, Enforcement: e.Enforcement()}
	for i, in := range ins {
		ii := InputInfo{HostPath: in.hostPath, Path: path.Join(containerDataDir, in.name), Size: in.size, Renamed: in.renamed}
		if i == 0 {
			info.Input = &ii
			continue
		}
		info.Inputs = append(info.Inputs, ii)
	}
	return info
}

// launchSession creates, attaches and starts the session's container,
// waits for the supervisor's hello (then sends a team host its files) and
// writes session.json; on failure the container is removed.
func (e *Engine) launchSession(ctx context.Context, s *Session, j job, spec *specgen.SpecGenerator) (*Session, error) {
	api := e.api(ctx)
	created, err := containers.CreateWithSpec(api, spec, nil)
	if err != nil {
		return nil, fmt.Errorf("create the session's sandbox: %w", explain(err))
	}
	s.info.Container = created.ID
	fail := func(err error) (*Session, error) {
		s.detach()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(api), 30*time.Second)
		defer cancel()
		removeContainer(rctx, created.ID)
		return nil, err
	}
	if err := s.attach(ctx); err != nil {
		return fail(err)
	}
	if err := containers.Start(api, created.ID, nil); err != nil {
		if isRuntimeFailure(err) {
			e.forgetRuntime()
		}
		return fail(fmt.Errorf("start the session's sandbox: %w", explain(err)))
	}
	select {
	case h := <-s.hello:
		if h == nil {
			return fail(errors.New("the session's sandbox spoke out of turn"))
		}
		s.info.Observed = h.Observed
		if len(j.sent) > 0 {
			// The kernel waits for its files (send.go).
			said := make(chan struct{})
			close(said)
			if err := e.sendInputs(ctx, created.ID, j.sent, said, s.endedCh, nil); err != nil {
				return fail(err)
			}
		}
	case <-s.endedCh:
		return fail(fmt.Errorf("the session's sandbox ended at start: %s", s.ended))
	case <-time.After(60 * time.Second):
		return fail(errors.New("the session's sandbox did not answer within 60s"))
	}
	if err := writeJSON(filepath.Join(s.info.Dir, "session.json"), s.info); err != nil {
		return fail(err)
	}
	return s, nil
}

// sessionSpec is a session's container spec: a one-shot run's (buildSpec,
// the same hardening field for field) but for its command (the
// supervisor), an open stdin (the requests) and its lifetime.
func sessionSpec(lim Limits, j job, idle time.Duration, preload []string) (*specgen.SpecGenerator, error) {
	spec := buildSpec(lim, j)
	cmd, err := sessionCommand(lim, j, idle, preload)
	if err != nil {
		return nil, err
	}
	spec.Command = cmd
	spec.Stdin = true
	spec.Timeout = uint(sessionLifetime.Seconds())
	return spec, nil
}

// sessionCommand is the container's argv: the supervisor and its config —
// the runner's config (spec.go's command) plus the session's own fields.
func sessionCommand(lim Limits, j job, idle time.Duration, preload []string) ([]string, error) {
	argv := command(lim, j)
	var cfg map[string]any
	for i, a := range argv {
		if a == runnerPath && i+1 < len(argv) {
			data, err := base64.StdEncoding.DecodeString(argv[i+1])
			if err == nil {
				err = json.Unmarshal(data, &cfg)
			}
			if err != nil {
				return nil, fmt.Errorf("the runner's config: %w", err)
			}
			argv = argv[:i]
			break
		}
	}
	if cfg == nil {
		return nil, errors.New("the runner's command has no config")
	}
	delete(cfg, "deadline_ms")
	cfg["idle_ms"] = idle.Milliseconds()
	cfg["grace_ms"] = interruptGrace.Milliseconds()
	cfg["preload"] = preload
	data, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	return append(argv, kernelPath, base64.StdEncoding.EncodeToString(data)), nil
}
