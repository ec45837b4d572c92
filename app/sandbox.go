package app

import (
	"context"
	"errors"
	"path/filepath"
	"sync"

	"rehome/sandbox"
)

// The Code Interpreter: run code against the dropped file in the Podman
// sandbox, stop it, the sandbox's status, limits and self-test, and the
// image. Progress of a run goes out as "run:progress" events
// (sandbox.Progress); of an image build as "image:progress" (a line).

// sandboxHolder keeps an App's sandbox engine, started on first use: it
// connects to Podman (or starts a private service) once for the session.
type sandboxHolder struct {
	mu     sync.Mutex
	engine *sandbox.Engine
}

func (a *App) sandboxHold() *sandboxHolder { return &a.sandbox }

// engine returns the session's engine, starting it if needed. A failure is
// not kept: the next call tries again (Podman may have been installed or
// started since).
func (a *App) engine() (*sandbox.Engine, error) {
	h := a.sandboxHold()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.engine != nil {
		return h.engine, nil
	}
	e, err := sandbox.New(context.Background(), sandbox.Options{})
	if err != nil {
		a.log.Warn("sandbox unavailable", "err", err)
		return nil, err
	}
	h.engine = e
	return e, nil
}

// CloseSandbox stops the session's Podman service if rehome started one.
// (Podman's service also dies with the process.)
func CloseSandbox(a *App) {
	closeAskSessions(a)
	closeSessions(a)
	h := a.sandboxHold()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.engine != nil {
		h.engine.Close()
		h.engine = nil
	}
}

// RunCode runs req.Code against req.InputPath in a fresh sandbox, under
// the user's limits (RunLimits; req.Limits overrides them field by field), saves the
// outputs in the run's folder, stores the run, and returns its result.
func (a *App) RunCode(req sandbox.RunRequest) (sandbox.Result, error) {
	if err := a.ready(); err != nil {
		return sandbox.Result{}, err
	}
	if req.ID != "" {
		// Only ids rehome made: the id names the run's folder.
		if err := sandbox.CheckRunID(req.ID); err != nil {
			return sandbox.Result{}, err
		}
	}
	if req.InputPath != "" {
		p, err := a.readable(req.InputPath)
		if err != nil {
			return sandbox.Result{}, err
		}
		req.InputPath = p
	}
	e, err := a.engine()
	if err != nil {
		return sandbox.Result{}, err
	}
	base, err := a.RunLimits()
	if err != nil {
		return sandbox.Result{}, err
	}
	req.Limits = req.Limits.Merge(base)
	if req.ID == "" {
		req.ID = sandbox.NewRunID()
	}
	req.OutputDir = filepath.Join(a.cfg.DataDir, RunsDir, req.ID)
	res, err := e.Run(context.Background(), req, func(p sandbox.Progress) { a.emit("run:progress", p) })
	if err != nil {
		a.log.Warn("run could not start", "run", req.ID, "err", err)
		return sandbox.Result{}, err
	}
	if err := sandbox.SaveRecord(a.store, sandbox.NewRecord(req, res, "app")); err != nil {
		a.log.Error("store run", "run", res.ID, "err", err)
	}
	a.log.Info("run", "id", res.ID, "exit", res.ExitCode, "timed_out", res.TimedOut, "oom", res.OOMKilled, "ms", res.DurationMS)
	return *res, nil
}

// StopRun kills a run in progress (its id comes with its progress events).
func (a *App) StopRun(id string) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	return e.StopRun(id)
}

// ListRuns returns up to limit stored runs, newest first.
func (a *App) ListRuns(limit int) ([]sandbox.Record, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return sandbox.ListRecords(a.store, limit)
}

// GetRun returns one stored run.
func (a *App) GetRun(id string) (sandbox.Record, error) {
	if err := a.ready(); err != nil {
		return sandbox.Record{}, err
	}
	return sandbox.GetRecord(a.store, id)
}

// SandboxStatus says whether runs can start: Podman found or not (and how
// to install it), the image, what the host enforces, the runtime.
func (a *App) SandboxStatus() (sandbox.Status, error) {
	e, err := a.engine()
	return sandbox.StatusOf(context.Background(), e, err), nil
}

// VerifyIsolation runs the self-test: each guarantee attacked, reported as
// held, weaker (and how) or not held. Progress goes out as
// "doctor:progress" events naming each check.
func (a *App) VerifyIsolation() (sandbox.DoctorReport, error) {
	e, err := a.engine()
	if err != nil {
		return sandbox.NoPodmanReport(err), nil
	}
	return e.Doctor(context.Background(), func(check string) { a.emit("doctor:progress", check) }), nil
}

// LoadImage loads a sandbox image archive (for air-gapped machines) and
// returns the names it held.
func (a *App) LoadImage(path string) ([]string, error) {
	path, err := a.readable(path)
	if err != nil {
		return nil, err
	}
	e, err := a.engine()
	if err != nil {
		return nil, err
	}
	a.emit("image:progress", "loading "+filepath.Base(path))
	return e.LoadImage(context.Background(), path)
}

// BuildImage builds the sandbox image from Debian packages (needs the
// Debian mirror once, and mmdebstrap); its output lines go out as
// "image:progress" events.
func (a *App) BuildImage() (sandbox.BuildReport, error) {
	e, err := a.engine()
	if err != nil {
		return sandbox.BuildReport{}, err
	}
	rep, err := e.BuildImage(context.Background(), func(line string) { a.emit("image:progress", line) })
	if err != nil {
		return sandbox.BuildReport{}, err
	}
	return *rep, nil
}

// SaveImage writes the sandbox image as an archive to carry to an
// air-gapped machine.
func (a *App) SaveImage(path string) error {
	if path == "" {
		return errors.New("choose where to save the image archive")
	}
	path, err := a.writable(path)
	if err != nil {
		return err
	}
	return a.saveImage(path)
}

// saveImage writes the archive to path, which the caller checked.
func (a *App) saveImage(path string) error {
	e, err := a.engine()
	if err != nil {
		return err
	}
	if err := e.EnsureImage(context.Background(), nil); err != nil {
		return err
	}
	return e.SaveImage(context.Background(), path)
}
