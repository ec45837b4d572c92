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
func (a *App) StartSession(path string) (core.SessionInfo, error) {
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
func (a *App) ExecCell(id, code string, timeoutMS int64) (core.CellResult, error) {
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
func (a *App) InterruptSession(id string) error { return a.core.Sessions().Interrupt(a.ctx, id) }

// RestartSession gives the session a fresh kernel: variables are lost,
// files stay.
func (a *App) RestartSession(id string) error { return a.core.Sessions().Restart(a.ctx, id) }

// StopSession ends the session; its cells stay for export.
func (a *App) StopSession(id string) error { return a.core.Sessions().Stop(a.ctx, id) }

// SessionCells returns a session's recorded cells (any session recorded
// in the data directory).
func (a *App) SessionCells(id string) ([]core.CellResult, error) {
	return a.core.Sessions().Cells(id)
}

// ExportSession returns a session's cells as a Jupyter notebook
// (format "ipynb") or a Python file ("py").
func (a *App) ExportSession(id, format string) (string, error) {
	b, _, err := a.core.Sessions().Export(id, format)
	return string(b), err
}
