package sandbox

import (
	"context"
	"fmt"
	"path/filepath"
	"rehome/backend/bytesize"
	"time"
)

// One cell: sent, waited for (limit, interrupt, the kill from outside),
// its outputs collected and its record saved.

// Exec runs one cell in the session and returns what it did. timeout 0
// takes the session's limit. Cancelling ctx interrupts the cell (like
// Interrupt). An error means the cell could not be sent; what the code
// did — fail, hang, exit, exhaust memory — is a CellResult.
func (s *Session) Exec(ctx context.Context, code string, timeout time.Duration, progress func(Progress)) (*CellResult, error) {
	timeout, err := s.checkCell(code, timeout)
	if err != nil {
		return nil, err
	}
	if progress == nil {
		progress = func(Progress) {}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if why := s.Ended(); why != "" {
		return nil, fmt.Errorf("%w (%s)", ErrSessionEnded, why)
	}
	// Cell numbers and records are shared with other processes: one
	// cell at a time per session, across them.
	unlock, err := lockDir(s.info.Dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	c := &cellRun{code: code, n: countCells(s.info.Dir) + 1, lim: s.lim, progress: progress}
	c.lim.Timeout = timeout
	c.sv, err = newSaver(filepath.Join(s.info.Dir, "cells", fmt.Sprintf("%04d", c.n)))
	if err != nil {
		return nil, err
	}
	defer c.sv.close()
	c.runID = fmt.Sprintf("%s-%04d", s.info.ID, c.n)
	c.col = newCollector(c.lim, c.sv, func(stream string, p []byte) {
		progress(Progress{RunID: c.runID, Stage: "output", Stream: stream, Text: string(p)})
	})
	keepMax := s.info.MaxKeptBytes
	if keepMax <= 0 {
		keepMax = defaultSessionKeep
	}
	c.earlier, _ = ReadCells(s.info.Dir)
	c.kept = loadKept(s.info.Dir, keepMax, c.earlier)
	c.col.keep = c.kept.keep
	sink := &cellSink{nonce: newNonce(), col: c.col, started: make(chan struct{}), exit: make(chan *cellExit, 1)}
	defer s.setSink(sink)()
	c.started = time.Now()
	progress(Progress{RunID: c.runID, Stage: "running", Message: fmt.Sprintf("running cell %d", c.n)})
	if err := s.send(map[string]any{"op": "exec", "nonce": sink.nonce, "cell": c.n, "code": code, "timeout_ms": timeout.Milliseconds()}); err != nil {
		return nil, err
	}
	s.waitCell(ctx, sink, c)
	return s.cellResult(c)
}

// cellRun is one cell on its way: what it runs under, where its outputs
// go, and how it ended.
type cellRun struct {
	code     string
	n        int // its number in the session
	runID    string
	lim      Limits
	progress func(Progress)
	sv       *saver
	col      *collector
	kept     *keptFiles
	earlier  []CellResult // the session's cells before it
	// Filled by waitCell.
	started       time.Time
	x             *cellExit // the supervisor's word; nil: none came
	ended, killed bool
}

// checkCell checks a cell's size and time limit (0: the session's) and
// returns the limit.
func (s *Session) checkCell(code string, timeout time.Duration) (time.Duration, error) {
	if len(code) > MaxScriptSize {
		return 0, fmt.Errorf("the cell is %s; the sandbox takes at most %s", bytesize.Format(int64(len(code))), bytesize.Format(MaxScriptSize))
	}
	if timeout <= 0 {
		timeout = s.lim.Timeout
	}
	if timeout > maxTimeout {
		return 0, fmt.Errorf("a cell's time limit is at most %s", maxTimeout)
	}
	return timeout, nil
}

// setSink makes sink the one the session's output goes to, until the
// returned func is called.
func (s *Session) setSink(sink *cellSink) func() {
	s.rmu.Lock()
	s.cur = sink
	s.rmu.Unlock()
	return func() {
		s.rmu.Lock()
		if s.cur == sink {
			s.cur = nil
		}
		s.rmu.Unlock()
	}
}

// waitCell waits for the cell's end: the supervisor's word, the session's
// end, or the host's kill at the hard limit; Ctrl-C interrupts the cell.
func (s *Session) waitCell(ctx context.Context, sink *cellSink, c *cellRun) {
	// The supervisor interrupts at the limit and kills the kernel after
	// the grace; the host's own kill of the whole sandbox is the guarantee.
	// The limit counts from when the kernel takes the cell: a kernel just
	// started may still be importing its preload.
	hardAfter := c.lim.Timeout + interruptGrace + 15*time.Second
	hard := time.NewTimer(kernelReady + hardAfter)
	defer hard.Stop()
	begun := sink.started
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	done := ctx.Done()
	for {
		select {
		case c.x = <-sink.exit:
			return
		case <-begun:
			begun = nil
			c.started = time.Now()
			hard.Reset(hardAfter)
		case <-done:
			done = nil
			c.progress(Progress{RunID: c.runID, Stage: "stopping", Message: "interrupting the cell"})
			s.send(map[string]any{"op": "interrupt"})
		case <-ticker.C:
			c.progress(Progress{RunID: c.runID, Stage: "running", ElapsedMS: time.Since(c.started).Milliseconds()})
		case <-s.endedCh:
			c.ended = true
			return
		case <-hard.C:
			c.killed, c.ended = true, true
			s.kill()
			return
		}
	}
}

// cellResult reports the ended cell as a run's result is reported, with
// the session's words on its limits and state, and saves its record.
func (s *Session) cellResult(c *cellRun) (*CellResult, error) {
	elapsed := time.Since(c.started)
	res := &CellResult{Result: Result{ID: c.runID, ExitCode: -1, Files: []File{}, Image: s.info.Image, Runtime: s.info.Runtime,
		Rootless: s.info.Rootless, Started: c.started, Input: s.info.Input, OutputDir: c.sv.dir},
		SessionID: s.info.ID, Cell: c.n, Code: c.code}
	out := &outcome{elapsed: elapsed, removed: true, exitCode: -1}
	col, x := c.col, c.x
	if x != nil {
		if x.Refused != "" {
			return nil, fmt.Errorf("the session refused the cell: %s", printable(x.Refused, 200))
		}
		ec := x.ExitCode
		col.exit = &exitFrame{ExitCode: &ec, OOMKills: x.OOMKills, MemoryPeak: x.MemoryPeak, RSSPeak: x.RSSPeak,
			WatchdogKilled: x.WatchdogKilled, StdoutBytes: x.StdoutBytes, StderrBytes: x.StderrBytes, CodeMS: x.CodeMS}
		out.codeElapsed = time.Duration(x.CodeMS) * time.Millisecond
	}
	col.hello = &helloFrame{V: protocolVersion, Observed: s.info.Observed}
	finish(&res.Result, c.lim, job{cgroups: s.info.Enforcement}, col, out)
	res.DurationMS = elapsed.Milliseconds()
	res.Limits.Timeout.How = fmt.Sprintf("the session's supervisor (PID 1, out of the code's reach) interrupts the cell at %s (KeyboardInterrupt) and kills its kernel if it has not stopped %s later (the state is then lost); rehome kills the whole sandbox from outside %s after that should the supervisor not answer",
		roundDuration(c.lim.Timeout), interruptGrace, 15*time.Second)
	s.explainCell(res, x, c.lim, c.ended, c.killed)
	res.Notes = append(res.Notes, c.kept.notes()...)
	if note := dropOldVersions(s.info.Dir, res, c.earlier); note != "" {
		res.Notes = append(res.Notes, note)
	}
	inlinePlots(res.Files)
	if err := writeJSON(filepath.Join(s.info.Dir, "cells", fmt.Sprintf("%04d.json", c.n)), cellRecord(res)); err != nil {
		res.Notes = append(res.Notes, "The cell's record could not be saved ("+err.Error()+"); it will be missing from an export.")
	}
	c.progress(Progress{RunID: c.runID, Stage: "done", Message: res.Summary})
	return res, nil
}

// cellRecord is what a cell's file keeps: no inline plots (the files are
// beside it).
func cellRecord(res *CellResult) *CellResult {
	cp := *res
	cp.Files = append([]File(nil), res.Files...)
	for i := range cp.Files {
		cp.Files[i].DataURL = ""
	}
	if len(cp.Code) > maxStoredCode {
		cp.Code = cp.Code[:maxStoredCode]
	}
	return &cp
}

// explainCell sets the cell's status and summary from the supervisor's
// end frame.
func (s *Session) explainCell(res *CellResult, x *cellExit, lim Limits, ended, killed bool) {
	lost := " The session's state is lost: its variables and imports are gone; run the cells it needs again."
	if x == nil {
		res.Status, res.StateLost, res.SessionEnded = "died", true, true
		res.TimedOut = killed
		why := s.Ended()
		if killed {
			why = fmt.Sprintf("the cell ran past %s and its interrupt, and the sandbox did not answer", roundDuration(lim.Timeout+interruptGrace))
		}
		res.LostReason = why
		res.Summary = "The session's sandbox ended during the cell (" + why + ")." + lost + " Start a new session."
		return
	}
	res.Status = x.Status
	res.Interrupted = x.Interrupted
	res.StateLost = x.StateLost
	res.LostReason = x.LostReason
	res.ExitCode = x.ExitCode
	res.TimedOut = x.DeadlineKilled
	res.OOMKilled = res.OOMKilled || x.WatchdogKilled || (x.OOMKills != nil && *x.OOMKills > 0)
	took := roundDuration(time.Duration(x.CodeMS) * time.Millisecond)
	switch {
	case x.Status == "ok":
		res.Summary = fmt.Sprintf("Cell %d finished in %s.", res.Cell, took)
	case x.Status == "error":
		res.Summary = fmt.Sprintf("Cell %d raised an error (the traceback is below); the session's state is kept.", res.Cell)
	case x.Status == "interrupted" && x.DeadlineKilled:
		res.Summary = fmt.Sprintf("Cell %d was interrupted at its %s limit (KeyboardInterrupt); the session's state is kept.", res.Cell, roundDuration(lim.Timeout))
	case x.Status == "interrupted":
		res.Summary = fmt.Sprintf("Cell %d was interrupted (KeyboardInterrupt); the session's state is kept.", res.Cell)
	case res.OOMKilled:
		res.Summary = fmt.Sprintf("Cell %d used more than the session's %s of memory: the kernel was killed.", res.Cell, bytesize.Format(lim.Memory)) + lost
	case x.Status == "killed" && x.DeadlineKilled:
		res.Summary = fmt.Sprintf("Cell %d ran past its %s limit and did not stop within %s of the interrupt: the kernel was killed.", res.Cell, roundDuration(lim.Timeout), interruptGrace) + lost
	case x.Status == "killed":
		res.Summary = fmt.Sprintf("Cell %d did not stop within %s of the interrupt: the kernel was killed.", res.Cell, interruptGrace) + lost
	default:
		res.Summary = fmt.Sprintf("Cell %d ended its kernel (%s).", res.Cell, x.LostReason) + lost
	}
	if x.StateLost && (x.Status == "ok" || x.Status == "error" || x.Status == "interrupted") {
		res.Notes = append(res.Notes, "This cell ran in a fresh kernel: "+x.LostReason+", so the earlier state is lost.")
	}
	if ended {
		res.SessionEnded = true
	}
}
