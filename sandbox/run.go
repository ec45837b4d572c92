package sandbox

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"path"
	"sync"
	"syscall"
	"time"

	"github.com/containers/podman/v4/pkg/bindings"

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
	lim, id, err := checkRunRequest(req)
	if err != nil {
		return nil, err
	}
	emit := func(phase, msg string) { progress(Progress{RunID: id, Stage: phase, Message: msg}) }

	var in *input
	if req.InputPath != "" {
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
	runtime, err := e.runRuntime(ctx, ensureImage)
	if err != nil {
		return nil, err
	}

	j, notes, release, err := e.runJob(ctx, id, req, in)
	if err != nil {
		return nil, err
	}
	defer release()
	var sv *saver
	if req.OutputDir != "" {
		if sv, err = newSaver(req.OutputDir); err != nil {
			return nil, err
		}
		defer sv.close()
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer e.trackRun(id, cancel)()

	res := e.newResult(id, runtime, in, sv, notes)
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
		inlinePlots(res.Files)
	}
	emit("done", res.Summary)
	return res, nil
}

// checkRunRequest checks a run's limits, code size and id, and returns
// the limits with their defaults and the id (a new one when none).
func checkRunRequest(req RunRequest) (Limits, string, error) {
	lim := req.Limits.WithDefaults()
	if err := lim.Validate(); err != nil {
		return lim, "", err
	}
	if len(req.Code) > MaxScriptSize {
		return lim, "", fmt.Errorf("the code is %s; the sandbox takes at most %s", bytesize.Format(int64(len(req.Code))), bytesize.Format(MaxScriptSize))
	}
	id := req.ID
	if id == "" {
		id = NewRunID()
	} else if err := CheckRunID(id); err != nil {
		return lim, "", err
	}
	return lim, id, nil
}

// runJob is the run's job: its script, labels and staged input, with the
// notes of the staging; release frees what it holds.
func (e *Engine) runJob(ctx context.Context, id string, req RunRequest, in *input) (j job, notes []string, release func(), err error) {
	j, release, err = e.newJob(ctx, "run", id, false)
	if err != nil {
		return j, nil, nil, err
	}
	j.labels[labelRun] = id
	j.script = []byte(req.Code)
	j.hardKillOnly = req.HardKillOnly
	if in == nil {
		return j, nil, release, nil
	}
	st, staged, notes, done, err := e.stageInputs([]*input{in})
	if err != nil {
		release()
		return j, nil, nil, err
	}
	j.setInputs(staged)
	freeJob := release // not the result itself, which the func below becomes
	return j, notes, func() { done(); st.remove(); freeJob() }, nil
}

// runRuntime is the runtime a run uses, with the image looked for first
// while the runtime is yet to be proved.
func (e *Engine) runRuntime(ctx context.Context, ensureImage func() error) (string, error) {
	if !e.runtimeKnown() {
		if err := ensureImage(); err != nil {
			return "", err
		}
		e.trace("image checked")
	}
	runtime, err := e.Runtime(ctx)
	if err != nil {
		return "", err
	}
	e.trace("runtime known")
	return runtime, nil
}

// trackRun lets StopRun cancel the run id until the returned func is
// called.
func (e *Engine) trackRun(id string, cancel context.CancelFunc) func() {
	return holdIn(&e.mu, e.runs, id, cancel)
}

// holdIn puts v in m under k, holding mu, and returns the func that takes
// it out again (a run's cancel func, a session's awaited reply).
func holdIn[K comparable, V any](mu *sync.Mutex, m map[K]V, k K, v V) func() {
	mu.Lock()
	m[k] = v
	mu.Unlock()
	return func() {
		mu.Lock()
		delete(m, k)
		mu.Unlock()
	}
}

// newResult is a run's result before it ran: where its input and outputs
// are, and the notes of its staging.
func (e *Engine) newResult(id, runtime string, in *input, sv *saver, notes []string) *Result {
	res := &Result{ID: id, ExitCode: -1, Files: []File{}, Image: e.image, Runtime: runtime, Rootless: e.Host().Rootless, Started: time.Now(), Notes: notes}
	if in != nil {
		res.Input = &InputInfo{HostPath: in.hostPath, Path: path.Join(containerDataDir, in.name), Size: in.size, Renamed: in.renamed}
	}
	if sv != nil {
		res.OutputDir = sv.dir
	}
	return res
}

// inlinePlots fills DataURL for the plots of at most 8 MiB.
func inlinePlots(files []File) {
	for i := range files {
		if files[i].Kind == "plot" && files[i].Size <= 8*MiB {
			if data, err := os.ReadFile(files[i].Path); err == nil {
				files[i].DataURL = "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
			}
		}
	}
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
