package app

import (
	"time"

	"rehome/backend/core"
)

// Code Interpreter sessions: the file's own Python that keeps its state
// across cells. The screen starts one as soon as a file is dropped (so the
// first cell does not wait for a container), runs its cells in it, and can
// interrupt, restart and stop it; all of them end when the app does.
// Progress of a cell goes out as "run:progress" events, like a run's.

// SessionsDir is where sessions keep their cells and outputs, under the
// data directory.
const SessionsDir = core.SessionsDir

// StartSession starts a session on the file at path (empty: none), or
// returns the running one already started for that file. At the bound of
// sessions the one used longest ago gives way, this window's or a
// conversation's (core.Sessions.Open).
func (svc *RunService) StartSession(path string) (core.SessionInfo, error) {
	a := svc.app
	if err := a.ready(); err != nil {
		return core.SessionInfo{}, err
	}
	if path != "" {
		p, err := a.readable(path)
		if err != nil {
			return core.SessionInfo{}, err
		}
		path = p
	}
	s, err := a.core.Sessions().Open(a.ctx, path)
	if err != nil {
		a.log.Warn("session could not start", "file", path, "err", err)
		return core.SessionInfo{}, err
	}
	a.log.Info("session started", "id", s.ID(), "file", path)
	return s.Info(), nil
}

// ExecCell runs code as the session's next cell. timeoutMS 0 takes the
// user's run time limit.
func (svc *RunService) ExecCell(id, code string, timeoutMS int64) (core.CellResult, error) {
	a := svc.app
	s, err := a.core.Sessions().Opened(id)
	if err != nil {
		return core.CellResult{}, err
	}
	// The cell joins the file's history like a run (shown again when the
	// file is opened later); a record not kept is logged, the cell stands.
	res, err := a.core.Sessions().Exec(a.ctx, s, code, time.Duration(timeoutMS)*time.Millisecond,
		func(p core.Progress) { a.emit("run:progress", p) })
	if res == nil {
		return core.CellResult{}, err
	}
	a.log.Info("cell", "session", id, "cell", res.Cell, "status", res.Status, "state_lost", res.StateLost, "ms", res.DurationMS)
	return *res, nil
}

// InterruptSession sends KeyboardInterrupt to the session's running cell.
func (svc *RunService) InterruptSession(id string) error {
	return svc.app.core.Sessions().Interrupt(svc.app.ctx, id)
}

// RestartSession gives the session a fresh kernel: variables are lost,
// files stay.
func (svc *RunService) RestartSession(id string) error {
	return svc.app.core.Sessions().Restart(svc.app.ctx, id)
}

// StopSession ends the session; its cells stay for export.
func (svc *RunService) StopSession(id string) error {
	return svc.app.core.Sessions().Stop(svc.app.ctx, id)
}

// SessionCells returns a session's recorded cells (any session recorded
// in the data directory).
func (svc *RunService) SessionCells(id string) ([]core.CellResult, error) {
	a := svc.app
	return a.core.Sessions().Cells(id)
}

// ExportSession returns a session's cells as a Jupyter notebook
// (format "ipynb") or a Python file ("py").
func (svc *RunService) ExportSession(id, format string) (string, error) {
	a := svc.app
	b, _, err := a.core.Sessions().Export(id, format)
	return string(b), err
}
