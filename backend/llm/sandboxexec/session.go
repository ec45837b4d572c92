package sandboxexec

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"rehome/backend/llm"
	"rehome/sandbox"
)

// Session runs a conversation's cells in one sandbox session (a Python
// kernel kept alive between cells, as ChatGPT's Code Interpreter does):
// a variable defined in one cell is there in the next. The session starts
// at the first cell, with every file of Request at /mnt/data; Close ends
// it. Should it end on its own (idle, killed), the next cell starts a new
// one, and the model is told that the earlier state is gone.
type Session struct {
	Engine *sandbox.Engine
	// Request starts the session: its files (InputPath, InputPaths),
	// limits (per cell) and folder. ID is filled for each start.
	Request sandbox.SessionRequest
	// NewID names each session started (default sandbox.NewRunID).
	NewID func() string
	// DirFor is the folder of the session with id (default: Request.Dir
	// for the first, Request.Dir-<n> after it).
	DirFor func(id string) string
	// InlinePlots keeps the plots' data: URLs (the window shows them
	// without reading the disk); else they are dropped from the result.
	InlinePlots bool
	// MakeRoom is called when too many sessions run already; it may stop
	// one and return true, and the start is tried once more (may be nil).
	MakeRoom func() bool
	// Progress sees the cell's steps (may be nil).
	Progress func(sandbox.Progress)
	// Done is called with each finished cell (to keep its record; may be nil).
	Done func(code string, res *sandbox.CellResult)
	// Earlier says the conversation had cells before this executor: its
	// first cell tells the model they are gone.
	Earlier bool

	mu      sync.Mutex // one cell at a time
	cur     atomic.Pointer[sandbox.Session]
	s       *sandbox.Session
	starts  int
	pending string // said to the model with the next cell
	closed  bool
}

// Exec runs code as the session's next cell. Cancelling ctx interrupts
// the cell (KeyboardInterrupt; the kernel is killed after a grace), and
// what it did until then is the result.
func (x *Session) Exec(ctx context.Context, code string) (llm.CellResult, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.Engine == nil {
		return llm.CellResult{}, errors.New("no sandbox: install Podman and run `rehome sandbox doctor`")
	}
	if x.closed {
		return llm.CellResult{}, errors.New("the conversation's session was closed")
	}
	if x.s == nil || x.s.Ended() != "" {
		if err := x.start(ctx); err != nil {
			return llm.CellResult{}, err
		}
	}
	res, err := x.s.Exec(ctx, code, 0, x.Progress)
	if errors.Is(err, sandbox.ErrSessionEnded) {
		// Ended between cells (idle, killed): a new one, once.
		if err = x.start(ctx); err == nil {
			res, err = x.s.Exec(ctx, code, 0, x.Progress)
		}
	}
	if err != nil {
		return llm.CellResult{}, fmt.Errorf("the sandbox could not run the code: %w", err)
	}
	if x.Done != nil {
		x.Done(code, res)
	}
	c := FromResult(&res.Result)
	if !x.InlinePlots {
		for i := range c.Files {
			c.Files[i].DataURL = ""
		}
	}
	c.SessionID, c.Cell = res.SessionID, res.Cell
	c.Interrupted = res.Interrupted
	if res.Summary != "" {
		c.Summary = res.Summary
	}
	switch {
	case res.StateLost:
		c.StateLost = "the Python state was lost (" + orWord(res.LostReason, "the kernel ended") + "): variables and imports from earlier calls are gone; load the data again before using them"
	case x.pending != "":
		c.StateLost = x.pending
	}
	x.pending = ""
	return c, nil
}

func orWord(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// start starts a new session; the model is told at the next cell when
// an earlier one (or an earlier conversation's) had state.
func (x *Session) start(ctx context.Context) error {
	if x.s != nil {
		x.s.Stop(context.WithoutCancel(ctx))
		x.s = nil
		x.cur.Store(nil)
	}
	req := x.Request
	if x.NewID != nil {
		req.ID = x.NewID()
	} else {
		req.ID = sandbox.NewRunID()
	}
	if x.DirFor != nil {
		req.Dir = x.DirFor(req.ID)
	} else if x.starts > 0 {
		req.Dir = fmt.Sprintf("%s-%d", x.Request.Dir, x.starts+1)
	}
	// The session outlives this cell (and this question, in the window):
	// its attach and the engine's service must not end with ctx.
	bg := context.WithoutCancel(ctx)
	if _, err := x.Engine.Runtime(bg); err != nil {
		return fmt.Errorf("the sandbox could not run the code: %w", err)
	}
	s, err := x.Engine.StartSession(bg, req)
	if errors.Is(err, sandbox.ErrTooManySessions) && x.MakeRoom != nil && x.MakeRoom() {
		s, err = x.Engine.StartSession(bg, req)
	}
	if err != nil {
		return fmt.Errorf("the sandbox could not start a session for the code: %w", err)
	}
	if x.starts > 0 || x.Earlier {
		x.pending = "this call ran in a new Python session: variables and imports from earlier calls are gone; load the data again before using them"
	}
	x.starts++
	x.s = s
	x.cur.Store(s)
	return ctx.Err()
}

// Started says whether a session is running; it does not wait for a
// running cell.
func (x *Session) Started() bool {
	s := x.cur.Load()
	return s != nil && s.Ended() == ""
}

// Info is the session's record (zero before the first cell); it does not
// wait for a running cell.
func (x *Session) Info() sandbox.SessionInfo {
	if s := x.cur.Load(); s != nil {
		return s.Info()
	}
	return sandbox.SessionInfo{}
}

// Close ends the session (its container is removed; its folder stays).
// A cell running at the time is interrupted first; no cell runs after.
func (x *Session) Close(ctx context.Context) error {
	if !x.mu.TryLock() {
		// A cell runs: interrupt it, then wait for it to end.
		if s := x.cur.Load(); s != nil {
			s.Interrupt()
		}
		x.mu.Lock()
	}
	defer x.mu.Unlock()
	x.closed = true
	if x.s == nil {
		return nil
	}
	err := x.s.Stop(ctx)
	x.s = nil
	x.cur.Store(nil)
	return err
}

// FromResult turns a sandbox result into a cell result.
func FromResult(res *sandbox.Result) llm.CellResult {
	c := llm.CellResult{RunID: res.ID, ExitCode: res.ExitCode, TimedOut: res.TimedOut, OOMKilled: res.OOMKilled,
		Stdout: res.Stdout, Stderr: res.Stderr, Summary: res.Summary, Notes: res.Notes, DurationMS: res.DurationMS,
		Files: []llm.OutFile{}}
	if res.StdoutTruncated {
		c.Notes = append(c.Notes, "stdout was cut at the sandbox's output limit")
	}
	for _, f := range res.Files {
		c.Files = append(c.Files, llm.OutFile{Name: f.Name, Kind: f.Kind, Size: f.Size, Path: f.Path, DataURL: f.DataURL})
	}
	return c
}
