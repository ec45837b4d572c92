package sandbox

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"path"
	"syscall"
	"time"

	"github.com/containers/podman/v4/pkg/bindings"
	"github.com/containers/podman/v4/pkg/bindings/containers"

	"rehome/backend/bytesize"

	"rehome/sandbox/link"
)

// One run: the request, its progress, and execute, which creates,
// attaches, starts, waits for or kills, and removes its container.

// RunRequest is one piece of code to run.
type RunRequest struct {
	// ID names the run (default: a new id). StopRun takes it.
	ID string `json:"id"`
	// Code is the Python source.
	Code string `json:"code"`
	// InputPath is the user's file, shown to the code read-only at
	// /mnt/data/<its name>. Empty: no input.
	InputPath string `json:"input_path"`
	// Limits of the run; zero fields take DefaultLimits.
	Limits Limits `json:"limits"`
	// OutputDir is where outputs are saved (created if missing; existing
	// files are never overwritten). Empty: outputs are reported as skipped.
	OutputDir string `json:"output_dir"`
	// InlinePlots fills File.DataURL for plots.
	InlinePlots bool `json:"inline_plots"`
	// HardKillOnly leaves the timeout to rehome's kill from outside alone,
	// without the runner's kill just before it that keeps earlier outputs
	// (the self-test uses it to attack the outside kill itself).
	HardKillOnly bool `json:"-"`
}

// Progress is a step of a run, for the UI.
type Progress struct {
	RunID string `json:"run_id"`
	// Stage is "image" (loading the image), "starting", "sending" (the
	// input files travelling to a team host, Message in words), "running" (sent
	// every second with ElapsedMS), "output" (Text carries what the code
	// printed on Stream), "stopping", "collecting" or "done".
	Stage     string `json:"stage"`
	ElapsedMS int64  `json:"elapsed_ms,omitempty"`
	Message   string `json:"message,omitempty"`
	Stream    string `json:"stream,omitempty"`
	Text      string `json:"text,omitempty"`
}

// Run runs req.Code in a fresh sandbox and returns what it did. An error
// means the run could not happen (bad input, no image, Podman failing);
// anything the code itself did — fail, hang, flood, exhaust memory — is
// a Result.
func (e *Engine) Run(ctx context.Context, req RunRequest, progress func(Progress)) (*Result, error) {
	if progress == nil {
		progress = func(Progress) {}
	}
	lim := req.Limits.WithDefaults()
	if err := lim.Validate(); err != nil {
		return nil, err
	}
	if len(req.Code) > MaxScriptSize {
		return nil, fmt.Errorf("the code is %s; the sandbox takes at most %s", bytesize.Format(int64(len(req.Code))), bytesize.Format(MaxScriptSize))
	}
	id := req.ID
	if id == "" {
		id = NewRunID()
	} else if err := CheckRunID(id); err != nil {
		return nil, err
	}
	emit := func(phase, msg string) { progress(Progress{RunID: id, Stage: phase, Message: msg}) }

	var in *input
	if req.InputPath != "" {
		var err error
		if in, err = openInput(req.InputPath); err != nil {
			return nil, err
		}
		defer in.close()
	}

	// The image is looked for before the run only when the runtime is yet
	// to be proved, since its probe runs the image. Otherwise the create
	// says whether the image is there (a request fewer a run); a missing
	// one is looked for, loaded from its archive, and the create tried
	// again, with the same words as before.
	ensureImage := func() error { return e.EnsureImage(ctx, func(msg string) { emit("image", msg) }) }
	if !e.runtimeKnown() {
		if err := ensureImage(); err != nil {
			return nil, err
		}
		e.trace("image checked")
	}
	runtime, err := e.Runtime(ctx)
	if err != nil {
		return nil, err
	}
	e.trace("runtime known")

	j, release, err := e.newJob(ctx, "run", id, false)
	if err != nil {
		return nil, err
	}
	defer release()
	j.labels[labelRun] = id
	j.script = []byte(req.Code)
	j.hardKillOnly = req.HardKillOnly
	var notes []string
	if in != nil {
		st, staged, stNotes, done, err := e.stageInputs([]*input{in})
		if err != nil {
			return nil, err
		}
		defer st.remove()
		defer done()
		j.setInputs(staged)
		notes = stNotes
	}

	var sv *saver
	if req.OutputDir != "" {
		if sv, err = newSaver(req.OutputDir); err != nil {
			return nil, err
		}
		defer sv.close()
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	e.mu.Lock()
	e.runs[id] = cancel
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.runs, id)
		e.mu.Unlock()
	}()

	res := &Result{ID: id, ExitCode: -1, Files: []File{}, Image: e.image, Runtime: runtime, Rootless: e.Host().Rootless, Started: time.Now(), Notes: notes}
	if in != nil {
		res.Input = &InputInfo{HostPath: in.hostPath, Path: path.Join(containerDataDir, in.name), Size: in.size, Renamed: in.renamed}
	}
	if sv != nil {
		res.OutputDir = sv.dir
	}
	col := newCollector(lim, sv, func(stream string, p []byte) {
		progress(Progress{RunID: id, Stage: "output", Stream: stream, Text: string(p)})
	})
	tick := func(el time.Duration) { progress(Progress{RunID: id, Stage: "running", ElapsedMS: el.Milliseconds()}) }
	r := &run{ctx: runCtx, lim: lim, job: j, col: col, emit: emit, tick: tick}
	out, err := e.execute(r)
	if errors.Is(err, errNoImageAtCreate) {
		// Nothing was created: the run starts again once the image is in.
		if err := ensureImage(); err != nil {
			return nil, err
		}
		out, err = e.execute(r)
	}
	if err != nil {
		if lost := e.Lost(); lost != nil {
			return nil, fmt.Errorf("%w; the run had not started (%v)", lost, err)
		}
		return nil, err
	}
	finish(res, lim, j, col, out)
	if req.InlinePlots {
		for i := range res.Files {
			if res.Files[i].Kind == "plot" && res.Files[i].Size <= 8*MiB {
				if data, err := os.ReadFile(res.Files[i].Path); err == nil {
					res.Files[i].DataURL = "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
				}
			}
		}
	}
	emit("done", res.Summary)
	return res, nil
}

// StopRun kills the run with that id, if it is still going.
func (e *Engine) StopRun(id string) error {
	e.mu.Lock()
	cancel, ok := e.runs[id]
	e.mu.Unlock()
	if !ok {
		return fmt.Errorf("run %q is not running", id)
	}
	cancel()
	return nil
}

// collectLimit bounds the time outputs take to arrive after the code ended
// (within killGrace).
const collectLimit = 60 * time.Second

// outcome is what execute observed from outside the container.
type outcome struct {
	timedOut bool
	stopped  bool
	// collectTimedOut: the code ended in time but its outputs did not
	// arrive within collectLimit.
	collectTimedOut bool
	// codeElapsed is the code's own run time (until the runner said it
	// ended); zero when it never said so.
	codeElapsed   time.Duration
	exitCode      int // the container's (the runner's) exit status; -1 unknown
	elapsed       time.Duration
	runnerStderr  string
	removed       bool
	removeErr     error
	attachErr     error
	protocolError error
	dropped       int64
	// lost is the team host's *link.ConnectionLostError when the link dropped
	// during the run.
	lost error
}

// run is one run as execute carries it out.
type run struct {
	// ctx is the run's: it ends when the caller's ends (Ctrl-C, a closed
	// window) or on StopRun, and every Podman call of the run derives
	// from it, except the kill and the removal, which must happen anyway.
	ctx  context.Context
	lim  Limits
	job  job
	col  *collector              // what the code sends back
	emit func(stage, msg string) // a step, for the UI
	tick func(time.Duration)     // every second while the code runs
}

// execute creates, attaches, starts, waits or kills, and removes one
// container.
func (e *Engine) execute(r *run) (*outcome, error) {
	lim, j, col, emit, tick := r.lim, r.job, r.col, r.emit, r.tick
	api := e.api(r.ctx)
	s := buildSpec(lim, j)
	emit("starting", "creating the sandbox")
	created, err := containers.CreateWithSpec(api, s, nil)
	if err != nil {
		if err = explain(err); errors.Is(err, ErrImageMissing) {
			return nil, fmt.Errorf("%w: %w", errNoImageAtCreate, err)
		}
		return nil, fmt.Errorf("create the sandbox container: %w", err)
	}
	e.trace("created")
	cid := created.ID
	out := &outcome{exitCode: -1}
	defer func() {
		// The container must be gone whatever happened: killed and
		// removed (the removal's answer is the proof; a failed one is
		// checked).
		if e.Lost() != nil {
			// The link is gone: removed later (ssh_lost.go).
			e.rememberLost(cid)
			return
		}
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(api), 30*time.Second)
		defer rcancel()
		// The service answers a removal once the container is gone (or
		// was already): only a failed removal needs a look of its own.
		if out.removeErr = removeContainer(rctx, cid); out.removeErr == nil {
			out.removed = true
		} else {
			ok, err := containers.Exists(rctx, cid, nil)
			out.removed = err == nil && !ok
		}
		e.trace("removed")
	}()

	// Attach before start, on a socket of its own: only closing it
	// unblocks the stream should the service hang.
	sockets := &socketSet{}
	dec := &decoder{c: col}
	errBuf := &capBuffer{max: 64 * kiB}
	ready := make(chan bool, 1)
	attachDone := make(chan error, 1)
	streamEnded := make(chan struct{})
	go func() {
		attachDone <- attachOutput(api, cid, sockets, dec, writerFunc(errBuf.write), ready)
		close(streamEnded)
	}()
	select {
	case <-ready:
	case err := <-attachDone:
		sockets.closeAll()
		return nil, fmt.Errorf("attach to the sandbox: %w", explain(err))
	case <-time.After(30 * time.Second):
		sockets.closeAll()
		return nil, errors.New("attach to the sandbox: the Podman service did not answer within 30s")
	}

	e.trace("attached")
	if err := r.ctx.Err(); err != nil {
		// Stopped before it started: Podman's bindings would retry a
		// cancelled Start for 0.6 s before failing.
		sockets.closeAll()
		<-attachDone
		return nil, fmt.Errorf("start the sandbox: %w", err)
	}
	if err := containers.Start(api, cid, nil); err != nil {
		sockets.closeAll()
		<-attachDone
		if isRuntimeFailure(err) {
			e.forgetRuntime()
		}
		return nil, fmt.Errorf("start the sandbox: %w", explain(err))
	}
	kill := func() {
		kctx, kcancel := context.WithTimeout(context.WithoutCancel(api), 15*time.Second)
		defer kcancel()
		_ = containers.Kill(kctx, cid, new(containers.KillOptions).WithSignal("KILL"))
	}
	if len(j.sent) > 0 {
		e.trace("started, waiting for its files")
		emit("starting", "sending the input files to "+e.serviceName())
		if err := e.sendInputs(r.ctx, cid, j.sent, col.helloSeen, streamEnded, func(msg string) { emit("sending", msg) }); err != nil {
			kill()
			sockets.closeAll()
			<-attachDone
			return nil, err
		}
		e.trace("files sent")
	}
	start := time.Now()
	e.trace("started")
	emit("running", "running the code")

	timer := time.NewTimer(lim.Timeout)
	defer timer.Stop()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	codeDone := col.codeDone
wait:
	for {
		select {
		case out.attachErr = <-attachDone:
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
			emit("collecting", "reading outputs")
		case <-ticker.C:
			tick(time.Since(start))
		case <-timer.C:
			out.elapsed = time.Since(start)
			if out.codeElapsed > 0 {
				out.collectTimedOut = true
				emit("stopping", "outputs took too long: killing the sandbox")
			} else {
				out.timedOut = true
				emit("stopping", "time limit reached: killing the sandbox")
			}
			kill()
			break wait
		case <-r.ctx.Done():
			out.elapsed = time.Since(start)
			out.stopped = true
			emit("stopping", "stopping the sandbox")
			kill()
			break wait
		}
	}
	if out.timedOut || out.stopped || out.collectTimedOut {
		// The stream ends when the container is gone; if the service
		// does not close it, close it ourselves.
		select {
		case out.attachErr = <-attachDone:
		case <-time.After(10 * time.Second):
			sockets.closeAll()
			out.attachErr = <-attachDone
		}
	}
	sockets.closeAll()
	e.trace("stream ended")
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
		out.runnerStderr = string(errBuf.buf)
		out.protocolError = dec.broken
		out.dropped = dec.dropped
		col.abortFile("cut short: the connection to the team host was lost")
		return out, nil
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
	out.runnerStderr = string(errBuf.buf)
	out.protocolError = dec.broken
	out.dropped = dec.dropped
	if dec.nhdr != 0 || dec.left != 0 {
		col.abortFile("cut short: the sandbox ended while sending it")
	}
	return out, nil
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

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// attachConn opens a private connection to the service whose sockets can
// be closed from outside.
func (e *Engine) attachConn(ctx context.Context) (context.Context, *socketSet, error) {
	actx, err := link.NewBindings(context.WithoutCancel(ctx), e.connection().Local())
	if err != nil {
		return nil, nil, fmt.Errorf("connect to the Podman service for the run: %w", err)
	}
	client, err := bindings.GetClient(actx)
	if err != nil {
		return nil, nil, err
	}
	set := &socketSet{}
	if tr, ok := link.PlainTransport(client.Client.Transport); ok && tr.DialContext != nil {
		dial := tr.DialContext
		nt := tr.Clone()
		nt.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err == nil {
				set.add(c)
			}
			return c, err
		}
		client.Client.Transport = link.Bounded(nt)
	}
	return actx, set, nil
}

// nprocHard is this process's hard RLIMIT_NPROC (0: unknown/unlimited):
// the service started by rehome inherits it, and a container cannot be
// given more without CAP_SYS_RESOURCE.
func nprocHard() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(6 /* RLIMIT_NPROC */, &r); err != nil || r.Max == ^uint64(0) {
		return 0
	}
	return r.Max
}
