package app

import (
	"errors"
	"path/filepath"

	"rehome/backend/core"
)

// The Code Interpreter: run code against the dropped file in the Podman
// sandbox, stop it, the sandbox's status, limits and self-test, and the
// image. Progress of a run goes out as "run:progress" events
// (core.Progress); of an image build as "image:progress" (a line).

// RunCode runs req.Code against req.InputPath in a fresh sandbox, under
// the user's limits (RunLimits; req.Limits overrides them field by field),
// saves the outputs in the run's folder, stores the run, and returns its
// result: the run service of the CLI's `rehome run`.
func (svc *RunService) RunCode(req core.RunRequest) (core.RunResult, error) {
	a := svc.app
	if err := a.ready(); err != nil {
		return core.RunResult{}, err
	}
	if req.InputPath != "" {
		p, err := a.readable(req.InputPath)
		if err != nil {
			return core.RunResult{}, err
		}
		req.InputPath = p
	}
	req.OutputDir = "" // always the run's folder, which the UI may show
	res, err := a.core.Runs().Run(a.ctx, req, "app", func(p core.Progress) { a.emit("run:progress", p) })
	if res == nil {
		return core.RunResult{}, uiError(err)
	}
	return *res, nil // a record not kept is logged; the result stands
}

// StopRun kills a run in progress (its id comes with its progress events).
func (svc *RunService) StopRun(id string) error {
	a := svc.app
	return a.core.Runs().Stop(id)
}

// ListRuns returns up to limit stored runs, newest first.
func (svc *RunService) ListRuns(limit int) ([]core.RunRecord, error) {
	return onStore(svc.app, func(c *core.Core) ([]core.RunRecord, error) { return c.Runs().List(limit) })
}

// GetRun returns one stored run.
func (svc *RunService) GetRun(id string) (core.RunRecord, error) {
	return onStore(svc.app, func(c *core.Core) (core.RunRecord, error) { return c.Runs().Get(id) })
}

// SandboxStatus says whether runs can start: Podman found or not (and how
// to install it), the image, what the host enforces, the runtime.
func (svc *RunService) SandboxStatus() (core.SandboxStatus, error) {
	a := svc.app
	return a.core.Sandbox().Status(a.ctx), nil
}

// VerifyIsolation runs the self-test: each guarantee attacked, reported as
// held, weaker (and how) or not held. Progress goes out as
// "doctor:progress" events naming each check; the outcome is kept for
// the readiness checklist (core.Sandbox.Doctor).
func (svc *RunService) VerifyIsolation() (core.DoctorReport, error) {
	a := svc.app
	rep := a.core.Sandbox().Doctor(a.ctx, func(check string) { a.emit("doctor:progress", check) })
	a.emit("firstrun:changed", "selftest") // the checklist's item shows it at once
	return rep, nil
}

// LoadImage loads a sandbox image archive (for air-gapped machines) and
// returns the names it held.
func (svc *RunService) LoadImage(path string) ([]string, error) {
	a := svc.app
	path, err := a.readable(path)
	if err != nil {
		return nil, err
	}
	a.emit("image:progress", "loading "+filepath.Base(path))
	return a.core.LoadImage(a.ctx, path, func(p core.ImageLoad) { a.emit("image:progress", p.Message) })
}

// BuildImage builds the sandbox image from Debian packages (needs the
// Debian mirror once, and mmdebstrap); its output lines go out as
// "image:progress" events.
func (svc *RunService) BuildImage() (core.BuildReport, error) {
	a := svc.app
	return value(a.core.Sandbox().BuildImage(a.ctx, func(line string) { a.emit("image:progress", line) }))
}

// SaveImage writes the sandbox image as an archive to carry to an
// air-gapped machine.
func (svc *RunService) SaveImage(path string) error {
	a := svc.app
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
	return a.core.Sandbox().SaveImage(a.ctx, path)
}
