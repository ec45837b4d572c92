package sandbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/containers/podman/v4/pkg/bindings/containers"

	"rehome/sandbox/link"
)

// execute creates, attaches, starts, waits or kills, and removes one
// container.
func (e *Engine) execute(r *run) (*outcome, error) {
	api := e.api(r.ctx)
	cid, err := e.createRun(r, api)
	if err != nil {
		return nil, err
	}
	out := &outcome{exitCode: -1}
	defer e.removeRun(api, cid, out)
	st, err := e.attachRun(api, cid, r.col)
	if err != nil {
		return nil, err
	}
	e.trace("attached")
	kill := func() {
		kctx, kcancel := context.WithTimeout(context.WithoutCancel(api), 15*time.Second)
		defer kcancel()
		_ = containers.Kill(kctx, cid, new(containers.KillOptions).WithSignal("KILL"))
	}
	if err := e.startRun(r, api, cid, st, kill); err != nil {
		return nil, err
	}
	start := time.Now()
	e.trace("started")
	r.emit("running", "running the code")
	e.waitRun(r, st, out, start, kill)
	st.sockets.closeAll()
	e.trace("stream ended")
	e.collectRun(r, api, cid, st, out, start)
	return out, nil
}

// createRun creates the run's container; errNoImageAtCreate says the image
// was missing (nothing was created).
func (e *Engine) createRun(r *run, api context.Context) (string, error) {
	s := buildSpec(r.lim, r.job)
	r.emit("starting", "creating the sandbox")
	created, err := containers.CreateWithSpec(api, s, nil)
	if err != nil {
		if err = explain(err); errors.Is(err, ErrImageMissing) {
			return "", fmt.Errorf("%w: %w", errNoImageAtCreate, err)
		}
		return "", fmt.Errorf("create the sandbox container: %w", err)
	}
	e.trace("created")
	return created.ID, nil
}

// removeRun makes sure the container is gone whatever happened: killed
// and removed (the removal's answer is the proof; a failed one is
// checked). Where the link is gone, it is removed later (ssh_lost.go).
func (e *Engine) removeRun(api context.Context, cid string, out *outcome) {
	if e.Lost() != nil {
		e.rememberLost(cid)
		return
	}
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(api), 30*time.Second)
	defer rcancel()
	// The service answers a removal once the container is gone (or was
	// already): only a failed removal needs a look of its own.
	if out.removeErr = removeContainer(rctx, cid); out.removeErr == nil {
		out.removed = true
	} else {
		ok, err := containers.Exists(rctx, cid, nil)
		out.removed = err == nil && !ok
	}
	e.trace("removed")
}

// runStream is a run's attached output: the sockets that carry it, what
// decodes stdout, the runner's own stderr, and when the stream ended.
type runStream struct {
	sockets *socketSet
	dec     *decoder
	errBuf  *capBuffer
	done    chan error    // the attach's end
	ended   chan struct{} // closed once the attach returned
}

// abort closes the stream's sockets and waits for the attach to end.
func (st *runStream) abort() {
	st.sockets.closeAll()
	<-st.done
}

// attachRun attaches to the container before it starts, on a socket of its
// own: only closing it unblocks the stream should the service hang.
func (e *Engine) attachRun(api context.Context, cid string, col *collector) (*runStream, error) {
	st := &runStream{sockets: &socketSet{}, dec: &decoder{c: col}, errBuf: &capBuffer{max: 64 * kiB},
		done: make(chan error, 1), ended: make(chan struct{})}
	ready := make(chan bool, 1)
	go func() {
		st.done <- attachOutput(api, cid, st.sockets, st.dec, writerFunc(st.errBuf.write), ready)
		close(st.ended)
	}()
	select {
	case <-ready:
		return st, nil
	case err := <-st.done:
		st.sockets.closeAll()
		return nil, fmt.Errorf("attach to the sandbox: %w", explain(err))
	case <-time.After(30 * time.Second):
		st.sockets.closeAll()
		return nil, errors.New("attach to the sandbox: the Podman service did not answer within 30s")
	}
}

// startRun starts the attached container and sends a team host's run its
// input files.
func (e *Engine) startRun(r *run, api context.Context, cid string, st *runStream, kill func()) error {
	if err := r.ctx.Err(); err != nil {
		// Stopped before it started: Podman's bindings would retry a
		// cancelled Start for 0.6 s before failing.
		st.abort()
		return fmt.Errorf("start the sandbox: %w", err)
	}
	if err := containers.Start(api, cid, nil); err != nil {
		st.abort()
		if isRuntimeFailure(err) {
			e.forgetRuntime()
		}
		return fmt.Errorf("start the sandbox: %w", explain(err))
	}
	if len(r.job.sent) == 0 {
		return nil
	}
	e.trace("started, waiting for its files")
	r.emit("starting", "sending the input files to "+e.serviceName())
	if err := e.sendInputs(r.ctx, cid, r.job.sent, r.col.helloSeen, st.ended, func(msg string) { r.emit("sending", msg) }); err != nil {
		kill()
		st.abort()
		return err
	}
	e.trace("files sent")
	return nil
}

// waitRun waits for the stream to end, the code to end (then for its
// outputs, within collectLimit), the time limit or a stop, killing the
// container on the last two.
func (e *Engine) waitRun(r *run, st *runStream, out *outcome, start time.Time, kill func()) {
	timer := time.NewTimer(r.lim.Timeout)
	defer timer.Stop()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	codeDone := r.col.codeDone
wait:
	for {
		select {
		case out.attachErr = <-st.done:
			out.elapsed = time.Since(start)
			break wait
		case <-codeDone:
			// The code is over, in time: its outputs get a bounded time of
			// their own, so that a run ending just before its limit keeps
			// them.
			codeDone = nil
			out.codeElapsed = time.Since(start)
			timer.Stop()
			timer.Reset(collectLimit)
			ticker.Stop()
			r.emit("collecting", "reading outputs")
		case <-ticker.C:
			r.tick(time.Since(start))
		case <-timer.C:
			out.elapsed = time.Since(start)
			if out.codeElapsed > 0 {
				out.collectTimedOut = true
				r.emit("stopping", "outputs took too long: killing the sandbox")
			} else {
				out.timedOut = true
				r.emit("stopping", "time limit reached: killing the sandbox")
			}
			kill()
			break wait
		case <-r.ctx.Done():
			out.elapsed = time.Since(start)
			out.stopped = true
			r.emit("stopping", "stopping the sandbox")
			kill()
			break wait
		}
	}
	if out.timedOut || out.stopped || out.collectTimedOut {
		// The stream ends when the container is gone; if the service
		// does not close it, close it ourselves.
		select {
		case out.attachErr = <-st.done:
		case <-time.After(10 * time.Second):
			st.sockets.closeAll()
			out.attachErr = <-st.done
		}
	}
}

// collectRun fills the outcome once the stream ended: a lost link keeps what
// arrived; else the container's exit status where the runner had no last
// word, and the runner's stderr and the decoder's verdict.
func (e *Engine) collectRun(r *run, api context.Context, cid string, st *runStream, out *outcome, start time.Time) {
	col := r.col
	if out.lost = e.Lost(); out.lost == nil && e.remote() && col.exit == nil && !out.timedOut && !out.stopped {
		// The stream ended before the runner's report: when the link
		// dropped, its forwarded stream may end before the link says so.
		out.lost = e.connection().LostWithin(link.LostSettle)
	}
	if out.lost != nil {
		// Nothing more comes back: what arrived is kept, and the
		// container there ends at its own time limit (created with
		// --timeout and --rm).
		if out.elapsed == 0 {
			out.elapsed = time.Since(start)
		}
		out.runnerStderr, out.protocolError, out.dropped = string(st.errBuf.buf), st.dec.broken, st.dec.dropped
		col.abortFile("cut short: the connection to the team host was lost")
		return
	}
	// The container's exit status tells how it ended when the runner had
	// no last word. When it had, the status adds nothing, and waiting for
	// it only delays the removal: each poll is an inspect, for which the
	// service asks the runtime (`runc state`) — 25-35 ms a run here. The
	// removal kills whatever is left, so nothing outlives the run either way.
	if col.exit == nil {
		out.exitCode = waitExited(context.WithoutCancel(api), cid, 5*time.Second)
		e.trace("waited")
	}
	out.runnerStderr, out.protocolError, out.dropped = string(st.errBuf.buf), st.dec.broken, st.dec.dropped
	if st.dec.nhdr != 0 || st.dec.left != 0 {
		col.abortFile("cut short: the sandbox ended while sending it")
	}
}

// waitExited polls the container until it has exited and returns its exit
// status (-1 when it is gone or does not exit in time). Podman 4.3's wait
// endpoint polls every 250 ms and ignores a shorter interval; an inspect
// is a few milliseconds.
func waitExited(ctx context.Context, id string, limit time.Duration) int {
	deadline := time.Now().Add(limit)
	for {
		data, err := containers.Inspect(ctx, id, new(containers.InspectOptions).WithSize(false))
		if err != nil {
			return -1
		}
		if st := data.State; st != nil && !st.Running && (st.Status == "exited" || st.Status == "stopped") {
			return int(st.ExitCode)
		}
		if time.Now().After(deadline) {
			return -1
		}
		time.Sleep(10 * time.Millisecond)
	}
}
