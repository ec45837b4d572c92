package core

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"rehome/backend/store"
	"rehome/sandbox"
)

// RunsDir is the folder of the data folder that holds each run's outputs,
// in a folder named by the run's id.
const RunsDir = "runs"

// LimitsError is a limit outside what this machine allows or what the
// sandbox can hold: the caller's to fix before anything starts.
type LimitsError struct{ Err error }

// Error is the limit's error.
func (e *LimitsError) Error() string { return e.Err.Error() }

// Unwrap returns the limit's error.
func (e *LimitsError) Unwrap() error { return e.Err }

// Runs runs code in the sandbox the same way for every face: under the
// limits the user saved in Settings (what a request gives wins, field by
// field), with its outputs in the run's folder, and its record kept.
type Runs struct{ c *Core }

// RunDir is the folder where the outputs of run id go by default.
func (r *Runs) RunDir(id string) string { return filepath.Join(r.c.dir, RunsDir, id) }

// Limits resolves what a run that asks for req gets: req's fields, the
// rest from the limits saved in Settings, the rest the sandbox's defaults;
// checked against this machine's safe range and the sandbox's rules (a
// *LimitsError).
func (r *Runs) Limits(req sandbox.Limits) (sandbox.Limits, error) {
	saved, err := r.Saved()
	if err != nil {
		return sandbox.Limits{}, err
	}
	l := req.Merge(saved).WithDefaults()
	if err := checkLimits(l); err != nil {
		return sandbox.Limits{}, err
	}
	return l, nil
}

func checkLimits(l sandbox.Limits) error {
	if err := sandbox.CheckBounds(l, sandbox.MachineBounds()); err != nil {
		return &LimitsError{err}
	}
	if err := l.Validate(); err != nil {
		return &LimitsError{err}
	}
	return nil
}

// Run runs req in a fresh sandbox: its limits resolved by Limits, its
// outputs saved in req.OutputDir (default: RunDir), and its record stored
// with source ("app", "cli", "ask"…). An error means the run could not
// happen, except one wrapping ErrNotKept, which comes with the result.
// ctx ends the run (Ctrl-C, a closed window) like StopRun does.
func (r *Runs) Run(ctx context.Context, req sandbox.RunRequest, source string, progress func(sandbox.Progress)) (*sandbox.Result, error) {
	if req.ID == "" {
		req.ID = sandbox.NewRunID()
	} else if err := sandbox.CheckRunID(req.ID); err != nil {
		// Only ids rehome made: the id names the run's folder.
		return nil, err
	}
	lim, err := r.Limits(req.Limits)
	if err != nil {
		return nil, err
	}
	req.Limits = lim
	if req.OutputDir == "" {
		req.OutputDir = r.RunDir(req.ID)
	}
	e, err := r.c.Engine(ctx)
	if err != nil {
		return nil, err
	}
	r.c.runs.Add(1)
	res, err := e.Run(ctx, req, progress)
	r.c.runs.Done()
	if err != nil {
		r.c.log.Warn("run could not start", "run", req.ID, "err", err)
		return nil, err
	}
	r.c.log.Info("run", "id", res.ID, "source", source, "exit", res.ExitCode, "timed_out", res.TimedOut, "oom", res.OOMKilled, "ms", res.DurationMS)
	if err := r.Keep(sandbox.NewRecord(req, res, source)); err != nil {
		return res, err
	}
	return res, nil
}

// Stop kills the run with that id, if it is still going.
func (r *Runs) Stop(id string) error {
	e := r.c.Started()
	if e == nil {
		return fmt.Errorf("run %q is not running", id)
	}
	return e.StopRun(id)
}

// Keep stores a run's record (a session's cell, a step of an answer).
func (r *Runs) Keep(rec sandbox.Record) error {
	err := r.c.db(func(st *store.Store) error { return st.Put(store.Runs, rec.ID, rec) })
	if err != nil {
		r.c.log.Error("store run", "run", rec.ID, "err", err)
		return fmt.Errorf("%w: %w", ErrNotKept, err)
	}
	return nil
}

// List returns up to limit stored runs, newest first (0: all).
func (r *Runs) List(limit int) ([]sandbox.Record, error) {
	var out []sandbox.Record
	err := r.c.db(func(st *store.Store) (err error) {
		out, err = store.List[sandbox.Record](st, store.Runs, limit)
		return err
	})
	return out, err
}

// Get returns one stored run.
func (r *Runs) Get(id string) (sandbox.Record, error) {
	var rec sandbox.Record
	err := r.c.db(func(st *store.Store) error {
		if err := st.Get(store.Runs, id, &rec); err != nil {
			return err
		}
		// A run written by a newer rehome is refused (store.ErrNewer).
		return store.CheckSchema(store.Runs, id, rec.Schema, sandbox.RecordSchema)
	})
	if err != nil {
		return sandbox.Record{}, err
	}
	return rec, nil
}

// ---- The limits as the user saved them (Settings → Sandbox) ----

// limitsKey is the Settings record that holds the user's run limits.
const limitsKey = "sandbox_limits"

// limitsRecord is the stored form of the user's run limits.
type limitsRecord struct {
	Schema  int            `json:"schema"`
	Limits  sandbox.Limits `json:"limits"`
	Updated time.Time      `json:"updated"`
}

// Bounds is the range each limit may be set within on this machine.
func (r *Runs) Bounds() sandbox.LimitBounds { return sandbox.MachineBounds() }

// Saved returns the limits each run gets unless it asks otherwise: the
// user's choice, else the sandbox's defaults.
func (r *Runs) Saved() (sandbox.Limits, error) {
	l, err := r.stored()
	switch {
	case errors.Is(err, store.ErrNotFound):
		return sandbox.DefaultLimits, nil
	case err != nil:
		return sandbox.DefaultLimits, err
	}
	return l.WithDefaults(), nil
}

// stored returns the limits the user saved (store.ErrNotFound: none).
func (r *Runs) stored() (sandbox.Limits, error) {
	var rec limitsRecord
	err := r.c.db(func(st *store.Store) error { return st.Get(store.Settings, limitsKey, &rec) })
	return rec.Limits, err
}

// Save checks l against Bounds and the sandbox's own rules (a
// *LimitsError), stores it, and returns what is now in force.
func (r *Runs) Save(l sandbox.Limits) (sandbox.Limits, error) {
	l = l.WithDefaults()
	if err := checkLimits(l); err != nil {
		return sandbox.Limits{}, err
	}
	rec := limitsRecord{Schema: 1, Limits: l, Updated: time.Now().UTC()}
	if err := r.c.db(func(st *store.Store) error { return st.Put(store.Settings, limitsKey, rec) }); err != nil {
		return sandbox.Limits{}, err
	}
	r.c.log.Info("run limits changed", "timeout", l.Timeout.String(), "memory", l.Memory, "cpus", l.CPUs, "pids", l.Pids)
	return l, nil
}

// Reset goes back to the sandbox's defaults.
func (r *Runs) Reset() (sandbox.Limits, error) {
	err := r.c.db(func(st *store.Store) error { return st.Delete(store.Settings, limitsKey) })
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return sandbox.Limits{}, err
	}
	return sandbox.DefaultLimits, nil
}
