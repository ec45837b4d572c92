package core

import (
	"context"
	"errors"

	"rehome/backend/store"
	"rehome/sandbox"
)

// SessionsDir is the folder of the data folder that holds each session's
// cells and outputs, in a folder named by the session's id.
const SessionsDir = "sessions"

// SessionMemory is the memory ceiling a session gets when the user saved
// no limits: a kernel that keeps its state across cells needs more room
// than a one-shot run (sandbox.DefaultLimits).
const SessionMemory = 1 << 30

// Sessions starts Code Interpreter sessions (Python that keeps its state
// across cells) the same way for every face: under the limits the user
// saved in Settings, what the face asks for winning field by field, in
// the session's folder of the data folder, with each cell's record kept.
type Sessions struct{ c *Core }

// Sessions is the session service.
func (c *Core) Sessions() *Sessions { return &Sessions{c: c} }

// Dir is the folder of session id.
func (s *Sessions) Dir(id string) string { return sandbox.SessionDir(s.c.dir, id) }

// sessionEngine is what a session that asks for req starts with: its
// limits (Sessions.Limits) and the engine.
func (c *Core) sessionEngine(ctx context.Context, req sandbox.Limits) (sandbox.Limits, *sandbox.Engine, error) {
	lim, err := c.Sessions().Limits(req)
	if err != nil {
		return sandbox.Limits{}, nil, err
	}
	e, err := c.Engine(ctx)
	if err != nil {
		return sandbox.Limits{}, nil, err
	}
	return lim, e, nil
}

// Limits resolves what a session that asks for req gets: req's fields,
// the rest as saved in Settings, the rest the sandbox's defaults (with
// SessionMemory); checked as Runs.Limits checks a run's (a *LimitsError).
func (s *Sessions) Limits(req sandbox.Limits) (sandbox.Limits, error) {
	saved, err := s.c.runSvc.stored()
	switch {
	case errors.Is(err, store.ErrNotFound):
		saved = sandbox.Limits{Memory: SessionMemory}
	case err != nil:
		return sandbox.Limits{}, err
	}
	l := req.Merge(saved).WithDefaults()
	if err := checkLimits(l); err != nil {
		return sandbox.Limits{}, err
	}
	return l, nil
}

// Start starts a session on req's files under req.Limits resolved by
// Limits, in Dir(req.ID) unless req.Dir names another folder. ctx is the
// session's life: when it ends, so does the session.
func (s *Sessions) Start(ctx context.Context, req sandbox.SessionRequest) (*sandbox.Session, error) {
	lim, err := s.Limits(req.Limits)
	if err != nil {
		return nil, err
	}
	req.Limits = lim
	return s.start(ctx, req)
}

// StartResolved starts a session under req.Limits as Limits resolved them
// already, checked again but not read from Settings: the relay that
// `rehome session start` leaves, which must not wait on a database a
// window holds.
func (s *Sessions) StartResolved(ctx context.Context, req sandbox.SessionRequest) (*sandbox.Session, error) {
	if err := checkLimits(req.Limits); err != nil {
		return nil, err
	}
	return s.start(ctx, req)
}

func (s *Sessions) start(ctx context.Context, req sandbox.SessionRequest) (*sandbox.Session, error) {
	lim := req.Limits
	if req.ID == "" {
		req.ID = sandbox.NewRunID()
	}
	if req.Dir == "" {
		req.Dir = s.Dir(req.ID)
	}
	e, err := s.c.Engine(ctx)
	if err != nil {
		return nil, err
	}
	ss, err := e.StartSession(ctx, req)
	if err != nil {
		s.c.log.Warn("session could not start", "id", req.ID, "err", err)
		return nil, err
	}
	s.c.log.Info("session started", "id", req.ID, "timeout", lim.Timeout.String(), "memory", lim.Memory)
	return ss, nil
}

// Keep stores a finished cell's record, from source ("session", "ask"),
// like a run's: the cell joins its file's history.
func (s *Sessions) Keep(code string, res *sandbox.CellResult, source string) error {
	req := sandbox.RunRequest{Code: code}
	if res.Input != nil {
		req.InputPath = res.Input.HostPath
	}
	return s.c.runSvc.Keep(sandbox.NewRecord(req, &res.Result, source))
}
