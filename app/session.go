package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
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

// sessionHolder keeps the sessions this App started, by id.
type sessionHolder struct {
	mu   sync.Mutex
	byID map[string]*core.Session
	used map[string]time.Time // when each was last used
}

// StartSession starts a session on the file at path (empty: none), or
// returns the running one already started for that file.
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
	h := &a.sessions
	h.mu.Lock()
	for _, s := range h.byID {
		in := s.Info().Input
		if s.Ended() == "" && ((in == nil && path == "") || (in != nil && sameFile(in.HostPath, path))) {
			h.mu.Unlock()
			return s.Info(), nil
		}
	}
	h.mu.Unlock()
	// The limits saved in Settings, as for every session and run.
	sessions := a.core.Sessions()
	id := core.NewRunID()
	req := core.SessionRequest{ID: id, InputPath: path}
	s, err := sessions.Start(a.ctx, req)
	if errors.Is(err, core.ErrTooManySessions) && a.evictSession() {
		// At the limit: the file opened longest ago gives way to this one.
		s, err = sessions.Start(a.ctx, req)
	}
	if err != nil {
		a.log.Warn("session could not start", "file", path, "err", err)
		return core.SessionInfo{}, err
	}
	h.mu.Lock()
	if h.byID == nil {
		h.byID = map[string]*core.Session{}
	}
	h.byID[id] = s
	if h.used == nil {
		h.used = map[string]time.Time{}
	}
	h.used[id] = time.Now()
	h.mu.Unlock()
	a.log.Info("session started", "id", id, "file", path)
	return s.Info(), nil
}

func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

func (a *App) session(id string) (*core.Session, error) {
	h := &a.sessions
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.byID[id]
	if !ok {
		return nil, fmt.Errorf("session %s is not open in this window: drop the file again", id)
	}
	h.used[id] = time.Now()
	return s, nil
}

// evictSession stops this App's least recently used session; false when
// it holds none.
func (a *App) evictSession() bool {
	h := &a.sessions
	h.mu.Lock()
	var oldest string
	for id := range h.byID {
		if oldest == "" || h.used[id].Before(h.used[oldest]) {
			oldest = id
		}
	}
	s := h.byID[oldest]
	delete(h.byID, oldest)
	delete(h.used, oldest)
	h.mu.Unlock()
	if s == nil {
		return false
	}
	a.log.Info("session stopped for a newer one", "id", oldest)
	s.Stop(a.ctx)
	return true
}

// ExecCell runs code as the session's next cell. timeoutMS 0 takes the
// user's run time limit.
func (a *App) ExecCell(id, code string, timeoutMS int64) (core.CellResult, error) {
	s, err := a.session(id)
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
func (a *App) InterruptSession(id string) error {
	s, err := a.session(id)
	if err != nil {
		return err
	}
	return s.Interrupt()
}

// RestartSession gives the session a fresh kernel: variables are lost,
// files stay.
func (a *App) RestartSession(id string) error {
	s, err := a.session(id)
	if err != nil {
		return err
	}
	return s.Restart(a.ctx)
}

// StopSession ends the session; its cells stay for export.
func (a *App) StopSession(id string) error {
	s, err := a.session(id)
	if err != nil {
		return err
	}
	h := &a.sessions
	h.mu.Lock()
	delete(h.byID, id)
	delete(h.used, id)
	h.mu.Unlock()
	return s.Stop(a.ctx)
}

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

// closeSessions stops every session this App started (on exit).
func closeSessions(a *App) {
	h := &a.sessions
	h.mu.Lock()
	list := h.byID
	h.byID = nil
	h.mu.Unlock()
	for _, s := range list {
		s.Stop(context.Background())
	}
}
