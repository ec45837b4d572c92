package sandbox

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/containers/podman/v4/libpod/define"
	"github.com/containers/podman/v4/pkg/bindings/containers"
	"github.com/containers/podman/v4/pkg/specgen"

	"rehome/backend/atomicfile"
	"rehome/backend/bytesize"
)

// Sessions: a Code Interpreter that keeps its state across cells, like
// ChatGPT's Jupyter kernel. A session is one sandbox container — the same
// hardened spec as a one-shot run (buildSpec), with no wall-clock kill of
// the container but an idle time — whose PID 1 is the supervisor of
// build/sandbox/kernel.py. The supervisor keeps a Python kernel as its
// child, hands it one cell at a time, and frames each cell's outputs on the
// container's stdout between a begin and an end frame that carry the
// cell's nonce. The host writes its requests on the container's stdin
// through Podman's attach, so any process can reach a running session
// (the CLI's `session exec` attaches, sends one cell and detaches).
//
// Each session has a folder: session.json (what it is), cells/NNNN.json
// (each cell's code and result) and cells/NNNN/ (its files and plots), so
// that a later process can list it and export it as a notebook.

const (
	// LabelSession carries a session's id on its container.
	LabelSession = "io.rehome.session"
	// LabelSessions names the folder that holds the session's folder (a
	// data folder's sessions/): the cap on sessions at once counts only
	// that folder's, which its `rehome session list` shows.
	LabelSessions = "io.rehome.sessions"
	kernelPath   = "/opt/rehome/kernel.py"

	// SessionSchema is the version of session.json and the cell records.
	SessionSchema = 1

	// DefaultIdleTimeout ends a session no cell has used for that long.
	DefaultIdleTimeout = 30 * time.Minute
	// DefaultMaxSessions is how many sessions may run at once.
	DefaultMaxSessions = 4
	// InterruptGrace is how long a cell has to stop after SIGINT before its
	// kernel is killed (and the session's state lost).
	InterruptGrace = 2 * time.Second
	// kernelReady bounds the wait for a kernel to take a cell (a new
	// kernel imports its preload first).
	kernelReady = 2 * time.Minute
	// sessionLifetime is conmon's kill of a session container from outside,
	// should the supervisor itself never end it.
	sessionLifetime = 24 * time.Hour
)

// The supervisor's frames beyond the runner's (see kernel.py).
const (
	frameBegin = 'B'
	frameReply = 'R'
	frameQuit  = 'Q'
)

// ErrTooManySessions is wrapped when MaxSessions sessions run already.
var ErrTooManySessions = errors.New("too many sessions")

// ErrSessionEnded is returned by a session whose container is gone.
var ErrSessionEnded = errors.New("the session has ended (idle, stopped, or its sandbox was killed): start a new one")

// SessionRequest starts a session.
type SessionRequest struct {
	// ID names the session (default: a new id).
	ID string `json:"id"`
	// InputPath is the user's file, at /mnt/data/<its name>, read-only.
	InputPath string `json:"input_path"`
	// InputPaths are more files, each at /mnt/data/<its name>, read-only
	// (a conversation's dropped files and its assistant's knowledge). Two
	// files of the same name are refused.
	InputPaths []string `json:"input_paths,omitempty"`
	// Limits: Timeout is each cell's time limit by default; memory, pids
	// and CPU hold over the whole session; output caps hold per cell.
	Limits Limits `json:"limits"`
	// IdleTimeout ends the session when no cell ran for that long
	// (default DefaultIdleTimeout).
	IdleTimeout time.Duration `json:"idle_timeout_ns"`
	// Dir is the session's folder (record, cells, outputs). Required.
	Dir string `json:"dir"`
	// MaxSessions bounds the sessions running at once (default
	// DefaultMaxSessions).
	MaxSessions int `json:"max_sessions"`
	// Preload names modules the kernel imports while it waits for its
	// first cell (default pandas: the first cell after a drop does not
	// pay for it). Empty slice: none.
	Preload []string `json:"preload"`
}

// SessionInfo is a session's record (session.json), and its state when
// listed.
type SessionInfo struct {
	Schema    int        `json:"schema"`
	ID        string     `json:"id"`
	Container string     `json:"container"`
	Input     *InputInfo `json:"input,omitempty"`
	// Inputs are the files beyond Input.
	Inputs      []InputInfo   `json:"inputs,omitempty"`
	Limits      Limits        `json:"limits"`
	IdleTimeout time.Duration `json:"idle_timeout_ns"`
	Created     time.Time     `json:"created"`
	Image       string        `json:"image"`
	Runtime     string        `json:"runtime"`
	Rootless    bool          `json:"rootless"`
	Enforcement Enforcement   `json:"enforcement"`
	// Observed is what the supervisor saw of its confinement at start.
	Observed *Observed `json:"observed,omitempty"`
	Dir      string    `json:"dir"`
	// Running and Cells are filled when sessions are listed.
	Running bool `json:"running"`
	Cells   int  `json:"cells"`
}

// CellResult is what one cell did: a run's Result, plus the session's
// facts.
type CellResult struct {
	Result
	SessionID string `json:"session_id"`
	// Cell is the cell's number in the session (1, 2, …), In[n] in Jupyter.
	Cell int    `json:"cell"`
	Code string `json:"code"`
	// Status is "ok", "error" (an exception, traceback on stderr),
	// "interrupted" (KeyboardInterrupt at the limit or on Interrupt; the
	// state is kept), "killed" (it did not stop within the grace: the
	// kernel was killed) or "died" (the kernel ended: os._exit, a crash,
	// memory).
	Status      string `json:"status"`
	Interrupted bool   `json:"interrupted"`
	// StateLost says the session's variables and imports are gone (the
	// kernel was killed or ended); LostReason says why.
	StateLost  bool   `json:"state_lost"`
	LostReason string `json:"lost_reason,omitempty"`
	// SessionEnded says the whole sandbox is gone; a new session is needed.
	SessionEnded bool `json:"session_ended,omitempty"`
}

// cellExit is the supervisor's end-of-cell frame.
type cellExit struct {
	Nonce          string `json:"nonce"`
	Cell           int    `json:"cell"`
	Refused        string `json:"refused"`
	Status         string `json:"status"`
	Interrupted    bool   `json:"interrupted"`
	Stopped        bool   `json:"stopped"`
	DeadlineKilled bool   `json:"deadline_killed"`
	StateLost      bool   `json:"state_lost"`
	LostReason     string `json:"lost_reason"`
	WatchdogKilled bool   `json:"watchdog_killed"`
	StdoutBytes    int64  `json:"stdout_bytes"`
	StderrBytes    int64  `json:"stderr_bytes"`
	CodeMS         int64  `json:"code_ms"`
	MemoryPeak     *int64 `json:"memory_peak"`
	RSSPeak        int64  `json:"rss_peak"`
	ExitCode       int    `json:"exit_code"`
	OOMKills       *int   `json:"oom_kills"`
}

type replyFrame struct {
	Nonce string `json:"nonce"`
	Op    string `json:"op"`
}

type quitFrame struct {
	Reason  string `json:"reason"`
	Refused string `json:"refused"`
}

// Session is a running session as one process sees it: attached to its
// container. Exec runs one cell at a time.
type Session struct {
	e    *Engine
	info SessionInfo
	lim  Limits
	// release gives back the session's host ids (rootful) once it stopped.
	release func()

	mu sync.Mutex // one cell or control request at a time

	// the attach (or the connection to the session's relay)
	stdin      io.Writer
	closeIO    func()
	attachDone chan error
	// tap, when set, sees every frame (the relay passes them on).
	tap func(typ byte, p []byte)

	rmu     sync.Mutex // guards what follows
	cur     *cellSink
	replies map[string]chan struct{}
	hello   chan *helloFrame
	ended   string // why the session ended, once it has
	endedCh chan struct{}
}

// cellSink receives the frames of the cell being run.
type cellSink struct {
	nonce string
	col   *collector
	begun bool
	// started is closed when the kernel takes the cell (the begin frame).
	started chan struct{}
	exit    chan *cellExit
}

// SessionDir is the folder of a session under the data directory.
func SessionDir(dataDir, id string) string { return filepath.Join(dataDir, "sessions", id) }

// Info returns the session's record.
func (s *Session) Info() SessionInfo { return s.info }

// ID returns the session's id.
func (s *Session) ID() string { return s.info.ID }

// StartSession starts a session's container and waits until its
// supervisor says hello; the kernel then imports req.Preload while the
// caller does other things (a warm start).
func (e *Engine) StartSession(ctx context.Context, req SessionRequest) (*Session, error) {
	if req.Dir == "" {
		return nil, errors.New("a session needs a folder for its record")
	}
	lim := req.Limits.WithDefaults()
	if err := lim.Validate(); err != nil {
		return nil, err
	}
	idle := req.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	maxN := req.MaxSessions
	if maxN <= 0 {
		maxN = DefaultMaxSessions
	}
	preload := req.Preload
	if preload == nil {
		preload = []string{"pandas"}
	}
	id := req.ID
	if id == "" {
		id = NewRunID()
	}
	var ins []*input
	seen := map[string]string{}
	for _, p := range append([]string{req.InputPath}, req.InputPaths...) {
		if p == "" {
			continue
		}
		in, err := openInput(p)
		if err != nil {
			return nil, err
		}
		defer in.close()
		if other, dup := seen[in.name]; dup {
			if other == in.hostPath {
				continue // the same file twice
			}
			return nil, fmt.Errorf("two files are named %s (%s and %s): /mnt/data holds one of each name; rename one", in.name, other, in.hostPath)
		}
		seen[in.name] = in.hostPath
		ins = append(ins, in)
	}
	if err := e.EnsureImage(ctx, nil); err != nil {
		return nil, err
	}
	runtime, err := e.Runtime(ctx)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(req.Dir)
	if err != nil {
		return nil, err
	}
	base := filepath.Dir(abs)
	running, err := e.runningSessions(ctx, base)
	if err != nil {
		return nil, err
	}
	if len(running) >= maxN {
		ids := slices.Sorted(maps.Keys(running))
		return nil, fmt.Errorf("%w: %d of at most %d sessions of %s are running already (%s): stop one with `rehome session stop ID` (`rehome session list` shows them) or close its file", ErrTooManySessions, len(running), maxN, base, strings.Join(ids, ", "))
	}

	j, release, err := e.newJob(ctx, "session", id, true)
	if err != nil {
		return nil, err
	}
	started := false
	defer func() {
		if !started {
			release()
		}
	}()
	j.labels[LabelSession] = id
	j.labels[LabelSessions] = base
	// The stage goes once the container runs: its mounts hold the files.
	st, staged, _, done, err := e.stageInputs(ins)
	if err != nil {
		return nil, err
	}
	defer st.remove()
	defer done()
	j.setInputs(staged)
	info := SessionInfo{Schema: SessionSchema, ID: id, Limits: lim, IdleTimeout: idle, Created: time.Now().UTC(),
		Image: e.image, Runtime: runtime, Rootless: e.Host().Rootless, Enforcement: e.Enforcement()}
	for i, in := range ins {
		ii := InputInfo{HostPath: in.hostPath, Path: path.Join(DataDir, in.name), Size: in.size, Renamed: in.renamed}
		if i == 0 {
			info.Input = &ii
			continue
		}
		info.Inputs = append(info.Inputs, ii)
	}
	if err := os.MkdirAll(filepath.Join(abs, "cells"), 0o700); err != nil {
		return nil, fmt.Errorf("create the session's folder: %w", err)
	}
	info.Dir = abs

	spec, err := sessionSpec(lim, j, idle, preload)
	if err != nil {
		return nil, err
	}

	api := e.api(ctx)
	created, err := containers.CreateWithSpec(api, spec, nil)
	if err != nil {
		return nil, fmt.Errorf("create the session's sandbox: %w", explain(err))
	}
	info.Container = created.ID
	s := &Session{e: e, info: info, lim: lim, release: release}
	fail := func(err error) (*Session, error) {
		s.detach()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(api), 30*time.Second)
		defer cancel()
		removeContainer(rctx, created.ID)
		return nil, err
	}
	if err := s.attach(ctx); err != nil {
		return fail(err)
	}
	if err := containers.Start(api, created.ID, nil); err != nil {
		if isRuntimeFailure(err) {
			e.forgetRuntime()
		}
		return fail(fmt.Errorf("start the session's sandbox: %w", explain(err)))
	}
	select {
	case h := <-s.hello:
		if h == nil {
			return fail(errors.New("the session's sandbox spoke out of turn"))
		}
		s.info.Observed = h.Observed
	case <-s.endedCh:
		return fail(fmt.Errorf("the session's sandbox ended at start: %s", s.ended))
	case <-time.After(60 * time.Second):
		return fail(errors.New("the session's sandbox did not answer within 60s"))
	}
	if err := writeJSON(filepath.Join(abs, "session.json"), s.info); err != nil {
		return fail(err)
	}
	started = true
	return s, nil
}

// sessionSpec is a session's container spec: a one-shot run's (buildSpec,
// the same hardening field for field) but for its command (the
// supervisor), an open stdin (the requests) and its lifetime.
func sessionSpec(lim Limits, j job, idle time.Duration, preload []string) (*specgen.SpecGenerator, error) {
	spec := buildSpec(lim, j)
	cmd, err := sessionCommand(lim, j, idle, preload)
	if err != nil {
		return nil, err
	}
	spec.Command = cmd
	spec.Stdin = true
	spec.Timeout = uint(sessionLifetime.Seconds())
	return spec, nil
}

// sessionCommand is the container's argv: the supervisor and its config —
// the runner's config (spec.go's command) plus the session's own fields.
func sessionCommand(lim Limits, j job, idle time.Duration, preload []string) ([]string, error) {
	argv := command(lim, j)
	var cfg map[string]any
	for i, a := range argv {
		if a == runnerPath && i+1 < len(argv) {
			data, err := base64.StdEncoding.DecodeString(argv[i+1])
			if err == nil {
				err = json.Unmarshal(data, &cfg)
			}
			if err != nil {
				return nil, fmt.Errorf("the runner's config: %w", err)
			}
			argv = argv[:i]
			break
		}
	}
	if cfg == nil {
		return nil, errors.New("the runner's command has no config")
	}
	delete(cfg, "deadline_ms")
	cfg["idle_ms"] = idle.Milliseconds()
	cfg["grace_ms"] = InterruptGrace.Milliseconds()
	cfg["preload"] = preload
	data, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	return append(argv, kernelPath, base64.StdEncoding.EncodeToString(data)), nil
}

// attach opens the session's attach stream (stdin and stdout) on a
// connection of its own, and starts reading frames.
func (s *Session) attach(ctx context.Context) error {
	actx, sockets, err := s.e.attachConn(ctx)
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	outR, outW := io.Pipe()
	s.init()
	s.stdin = pw
	// Closing the attach must not end the container's stdin (conmon closes
	// it on an attach's EOF): the socket is closed under the copy, which
	// then fails with the one error the bindings take quietly.
	s.closeIO = func() {
		sockets.closeAll()
		pw.CloseWithError(define.ErrDetach)
	}
	s.attachDone = make(chan error, 1)
	errBuf := &capBuffer{max: 64 * KiB}
	ready := make(chan bool, 1)
	go func() {
		err := containers.Attach(actx, s.info.Container, pr, outW, writerFunc(errBuf.write), ready,
			new(containers.AttachOptions).WithStream(true).WithLogs(false))
		outW.CloseWithError(io.EOF)
		s.attachDone <- err
	}()
	go s.readFrames(outR, errBuf)
	select {
	case <-ready:
		return nil
	case err := <-s.attachDone:
		sockets.closeAll()
		if err == nil {
			err = ErrSessionEnded
		}
		s.attachDone <- err
		return fmt.Errorf("attach to the session: %w", explain(err))
	case <-time.After(30 * time.Second):
		sockets.closeAll()
		return errors.New("attach to the session: the Podman service did not answer within 30s")
	}
}

// readFrames parses the supervisor's frames and hands each to whoever
// waits for it; frames of cells this process did not send are dropped.
func (s *Session) init() {
	s.replies = map[string]chan struct{}{}
	s.hello = make(chan *helloFrame, 1)
	s.endedCh = make(chan struct{})
}

func (s *Session) readFrames(r io.Reader, errBuf *capBuffer) {
	br := bufio.NewReaderSize(r, 64<<10)
	var hdr [5]byte
	buf := make([]byte, 0, 64<<10)
	why := "the session's sandbox ended"
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			break
		}
		typ, n := hdr[0], binary.BigEndian.Uint32(hdr[1:])
		if n > 4<<20 {
			why = fmt.Sprintf("the session's output channel broke (a %q frame of %d bytes)", typ, n)
			break
		}
		buf = buf[:0]
		if cap(buf) < int(n) {
			buf = make([]byte, 0, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(br, buf); err != nil {
			break
		}
		if q := s.route(typ, buf); q != "" {
			why = q
			break
		}
	}
	if errBuf == nil {
		errBuf = &capBuffer{}
	}
	if msg := strings.TrimSpace(string(errBuf.buf)); msg != "" && !strings.Contains(why, msg) {
		why += " (" + printable(msg, 300) + ")"
	}
	s.end(why)
	io.Copy(io.Discard, br)
}

// route handles one frame; it returns why the session ended on a quit.
func (s *Session) route(typ byte, p []byte) string {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.tap != nil {
		s.tap(typ, p)
	}
	c := s.cur
	switch typ {
	case frameHello:
		var h helloFrame
		if json.Unmarshal(p, &h) == nil && h.V == protocolVersion {
			select {
			case s.hello <- &h:
			default:
			}
		}
	case frameBegin:
		var b replyFrame
		if json.Unmarshal(p, &b) == nil && c != nil && b.Nonce == c.nonce && !c.begun {
			c.begun = true
			close(c.started)
		}
	case frameStdout, frameStderr, frameFile, frameData, frameSkip:
		if c == nil || !c.begun {
			return ""
		}
		switch typ {
		case frameStdout:
			c.col.stdout.write(p)
			c.col.live("stdout", p)
		case frameStderr:
			c.col.stderr.write(p)
			c.col.live("stderr", p)
		case frameData:
			if err := c.col.data(p); err != nil {
				c.col.abortFile(err.Error())
			}
		default:
			if err := c.col.control(typ, p); err != nil {
				c.col.skip("output", err.Error())
			}
		}
	case frameExit:
		var x cellExit
		if json.Unmarshal(p, &x) != nil || c == nil || x.Nonce != c.nonce {
			return ""
		}
		c.col.abortFile("cut short")
		s.cur = nil
		c.exit <- &x
	case frameReply:
		var r replyFrame
		if json.Unmarshal(p, &r) == nil {
			if ch, ok := s.replies[r.Nonce]; ok {
				delete(s.replies, r.Nonce)
				close(ch)
			}
		}
	case frameQuit:
		var q quitFrame
		json.Unmarshal(p, &q)
		switch {
		case q.Refused != "":
			return "not started: " + printable(q.Refused, 200)
		case q.Reason == "idle":
			return fmt.Sprintf("the session ended after %s without a cell", roundDuration(s.info.IdleTimeout))
		}
		return "the session was stopped"
	}
	return ""
}

// end marks the session over and wakes whoever waits.
func (s *Session) end(why string) {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.ended != "" {
		return
	}
	s.ended = why
	close(s.endedCh)
}

// Ended says why the session is over, or "" while it runs.
func (s *Session) Ended() string {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	return s.ended
}

func (s *Session) send(msg map[string]any) error {
	data, err := json.Marshal(msg) // ASCII control bytes escaped: never a detach key
	if err != nil {
		return err
	}
	data = append(data, '\n')
	done := make(chan error, 1)
	go func() { _, err := s.stdin.Write(data); done <- err }()
	select {
	case err := <-done:
		return err
	case <-s.endedCh:
		return ErrSessionEnded
	case <-time.After(10 * time.Second):
		return errors.New("the session's sandbox does not read its requests")
	}
}

// control sends a request that the supervisor answers with a reply frame.
func (s *Session) control(ctx context.Context, msg map[string]any, limit time.Duration) error {
	nonce := newNonce()
	msg["nonce"] = nonce
	ch := make(chan struct{})
	s.rmu.Lock()
	s.replies[nonce] = ch
	s.rmu.Unlock()
	defer func() {
		s.rmu.Lock()
		delete(s.replies, nonce)
		s.rmu.Unlock()
	}()
	if err := s.send(msg); err != nil {
		return err
	}
	select {
	case <-ch:
		return nil
	case <-s.endedCh:
		return ErrSessionEnded
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(limit):
		return fmt.Errorf("the session did not answer %q within %s", msg["op"], limit)
	}
}

func newNonce() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Exec runs one cell in the session and returns what it did. timeout 0
// takes the session's limit. Cancelling ctx interrupts the cell (like
// Interrupt). An error means the cell could not be sent; what the code
// did — fail, hang, exit, exhaust memory — is a CellResult.
func (s *Session) Exec(ctx context.Context, code string, timeout time.Duration, progress func(Progress)) (*CellResult, error) {
	if len(code) > MaxScriptSize {
		return nil, fmt.Errorf("the cell is %s; the sandbox takes at most %s", bytesize.Format(int64(len(code))), bytesize.Format(MaxScriptSize))
	}
	if timeout <= 0 {
		timeout = s.lim.Timeout
	}
	if timeout > MaxTimeout {
		return nil, fmt.Errorf("a cell's time limit is at most %s", MaxTimeout)
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
	n := countCells(s.info.Dir) + 1
	outDir := filepath.Join(s.info.Dir, "cells", fmt.Sprintf("%04d", n))
	sv, err := newSaver(outDir)
	if err != nil {
		return nil, err
	}
	defer sv.close()
	lim := s.lim
	lim.Timeout = timeout
	runID := fmt.Sprintf("%s-%04d", s.info.ID, n)
	col := newCollector(lim, sv, func(stream string, p []byte) {
		progress(Progress{RunID: runID, Stage: "output", Stream: stream, Text: string(p)})
	})
	sink := &cellSink{nonce: newNonce(), col: col, started: make(chan struct{}), exit: make(chan *cellExit, 1)}
	s.rmu.Lock()
	s.cur = sink
	s.rmu.Unlock()
	defer func() {
		s.rmu.Lock()
		if s.cur == sink {
			s.cur = nil
		}
		s.rmu.Unlock()
	}()
	started := time.Now()
	progress(Progress{RunID: runID, Stage: "running", Message: fmt.Sprintf("running cell %d", n)})
	if err := s.send(map[string]any{"op": "exec", "nonce": sink.nonce, "cell": n, "code": code, "timeout_ms": timeout.Milliseconds()}); err != nil {
		return nil, err
	}
	// The supervisor interrupts at the limit and kills the kernel after
	// the grace; the host's own kill of the whole sandbox is the guarantee.
	// The limit counts from when the kernel takes the cell: a kernel just
	// started may still be importing its preload.
	hardAfter := timeout + InterruptGrace + 15*time.Second
	hard := time.NewTimer(kernelReady + hardAfter)
	defer hard.Stop()
	begun := sink.started
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	done := ctx.Done()
	var x *cellExit
	ended, killed := false, false
wait:
	for {
		select {
		case x = <-sink.exit:
			break wait
		case <-begun:
			begun = nil
			started = time.Now()
			hard.Reset(hardAfter)
		case <-done:
			done = nil
			progress(Progress{RunID: runID, Stage: "stopping", Message: "interrupting the cell"})
			s.send(map[string]any{"op": "interrupt"})
		case <-ticker.C:
			progress(Progress{RunID: runID, Stage: "running", ElapsedMS: time.Since(started).Milliseconds()})
		case <-s.endedCh:
			ended = true
			break wait
		case <-hard.C:
			killed, ended = true, true
			s.kill()
			break wait
		}
	}
	elapsed := time.Since(started)
	res := &CellResult{Result: Result{ID: runID, ExitCode: -1, Files: []File{}, Image: s.info.Image, Runtime: s.info.Runtime,
		Rootless: s.info.Rootless, Started: started, Input: s.info.Input, OutputDir: sv.dir},
		SessionID: s.info.ID, Cell: n, Code: code}
	out := &outcome{elapsed: elapsed, removed: true, exitCode: -1}
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
	finish(&res.Result, lim, job{cgroups: s.info.Enforcement}, col, out)
	res.DurationMS = elapsed.Milliseconds()
	res.Limits.Timeout.How = fmt.Sprintf("the session's supervisor (PID 1, out of the code's reach) interrupts the cell at %s (KeyboardInterrupt) and kills its kernel if it has not stopped %s later (the state is then lost); rehome kills the whole sandbox from outside %s after that should the supervisor not answer",
		roundDuration(lim.Timeout), InterruptGrace, 15*time.Second)
	s.explainCell(res, x, lim, ended, killed)
	for i := range res.Files {
		if res.Files[i].Kind == "plot" && res.Files[i].Size <= 8*MiB {
			if data, err := os.ReadFile(res.Files[i].Path); err == nil {
				res.Files[i].DataURL = "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
			}
		}
	}
	if err := writeJSON(filepath.Join(s.info.Dir, "cells", fmt.Sprintf("%04d.json", n)), cellRecord(res)); err != nil {
		res.Notes = append(res.Notes, "The cell's record could not be saved ("+err.Error()+"); it will be missing from an export.")
	}
	progress(Progress{RunID: runID, Stage: "done", Message: res.Summary})
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
			why = fmt.Sprintf("the cell ran past %s and its interrupt, and the sandbox did not answer", roundDuration(lim.Timeout+InterruptGrace))
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
		res.Summary = fmt.Sprintf("Cell %d ran past its %s limit and did not stop within %s of the interrupt: the kernel was killed.", res.Cell, roundDuration(lim.Timeout), InterruptGrace) + lost
	case x.Status == "killed":
		res.Summary = fmt.Sprintf("Cell %d did not stop within %s of the interrupt: the kernel was killed.", res.Cell, InterruptGrace) + lost
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

// Interrupt sends KeyboardInterrupt to the running cell (if any); the
// kernel is killed if the cell does not stop within InterruptGrace.
func (s *Session) Interrupt() error {
	if s.Ended() != "" {
		return ErrSessionEnded
	}
	return s.send(map[string]any{"op": "interrupt"})
}

// Restart replaces the kernel with a fresh one: every variable and import
// is gone, the files in /mnt/data stay.
func (s *Session) Restart(ctx context.Context) error {
	if s.Ended() != "" {
		return ErrSessionEnded
	}
	s.send(map[string]any{"op": "interrupt"}) // a running cell ends first
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.control(ctx, map[string]any{"op": "restart"}, 30*time.Second)
}

// Stop ends the session: its container is removed. Its folder stays.
func (s *Session) Stop(ctx context.Context) error {
	if s.Ended() == "" {
		s.send(map[string]any{"op": "stop"})
	}
	if s.e == nil { // reached through its relay: the supervisor ends it
		select {
		case <-s.endedCh:
		case <-time.After(10 * time.Second):
		}
		s.detach()
		if s.Ended() == "" {
			return errors.New("the session did not stop within 10s: `rehome sandbox clean` removes its sandbox")
		}
		return nil
	}
	s.detach()
	s.end("the session was stopped")
	err := s.e.removeSession(ctx, s.info.Container)
	if err == nil && s.release != nil {
		s.release()
	}
	return err
}

// removeSession removes a session's container and waits until it is gone
// (a container that exits on its own is also being removed by Podman).
func (e *Engine) removeSession(ctx context.Context, id string) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(e.api(ctx)), 30*time.Second)
	defer cancel()
	// Podman may be removing it already (it exited): then the removal
	// fails, and the wait below is what counts.
	rmErr := removeContainer(rctx, id)
	for rctx.Err() == nil {
		if ok, err := containers.Exists(rctx, id, nil); err == nil && !ok {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
		if rmErr != nil {
			rmErr = removeContainer(rctx, id)
		}
	}
	return fmt.Errorf("the session's sandbox %s is still there (%v): `rehome sandbox clean` removes it", id[:12], rmErr)
}

func (s *Session) kill() {
	if s.e == nil {
		s.send(map[string]any{"op": "stop"})
		return
	}
	kctx, cancel := context.WithTimeout(context.WithoutCancel(s.e.api(context.Background())), 15*time.Second)
	defer cancel()
	containers.Kill(kctx, s.info.Container, new(containers.KillOptions).WithSignal("KILL"))
	s.end("the session's sandbox was killed")
}

// Close detaches from the session and leaves it running.
func (s *Session) Close() { s.detach() }

// detach closes the attach (or the relay's connection) and leaves the
// session running.
func (s *Session) detach() {
	if s.closeIO != nil {
		s.closeIO()
	}
}

// runningSessions lists the session containers of the sessions folder base
// ("": of any folder) that run now, by session id.
func (e *Engine) runningSessions(ctx context.Context, base string) (map[string]string, error) {
	labels := []string{LabelSession}
	if base != "" {
		labels = append(labels, LabelSessions+"="+base)
	}
	list, err := containers.List(e.api(ctx), new(containers.ListOptions).WithAll(true).
		WithFilters(map[string][]string{"label": labels}))
	if err != nil {
		return nil, fmt.Errorf("list the sessions: %w", explain(err))
	}
	out := map[string]string{}
	for _, c := range list {
		if c.State == "running" || c.State == "created" {
			out[c.Labels[LabelSession]] = c.ID
		}
	}
	return out, nil
}

// ListSessions returns the sessions recorded under base (the data
// directory's sessions folder), newest first, with whether each runs.
func (e *Engine) ListSessions(ctx context.Context, base string) ([]SessionInfo, error) {
	abs, err := filepath.Abs(base)
	if err != nil {
		return nil, err
	}
	running, err := e.runningSessions(ctx, abs)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(base)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var out []SessionInfo
	for _, ent := range entries {
		var info SessionInfo
		if readJSON(filepath.Join(base, ent.Name(), "session.json"), &info) != nil {
			continue
		}
		_, info.Running = running[info.ID]
		info.Cells = countCells(filepath.Join(base, ent.Name()))
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, nil
}

// StopSessions removes the session containers this process owns (on exit).
func (e *Engine) StopSessions(ctx context.Context) int {
	list, err := containers.List(e.api(ctx), new(containers.ListOptions).WithAll(true).
		WithFilters(map[string][]string{"label": {LabelSession, LabelOwner + "=" + e.owner}}))
	if err != nil {
		return 0
	}
	n := 0
	for _, c := range list {
		if removeContainer(e.api(ctx), c.ID) == nil {
			n++
		}
	}
	return n
}

// StopSessionByID removes a session's container by the session's id.
func (e *Engine) StopSessionByID(ctx context.Context, id string) error {
	running, err := e.runningSessions(ctx, "")
	if err != nil {
		return err
	}
	cid, ok := running[id]
	if !ok {
		return fmt.Errorf("session %s is not running", id)
	}
	return e.removeSession(ctx, cid)
}

// ReadCells returns a session's recorded cells in order.
func ReadCells(dir string) ([]CellResult, error) {
	names, err := filepath.Glob(filepath.Join(dir, "cells", "[0-9][0-9][0-9][0-9]*.json"))
	if err != nil {
		return nil, err
	}
	sort.Slice(names, func(i, j int) bool { return cellNumber(names[i]) < cellNumber(names[j]) })
	var out []CellResult
	for _, n := range names {
		var c CellResult
		if err := readJSON(n, &c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func cellNumber(name string) int {
	n, _ := strconv.Atoi(strings.TrimSuffix(filepath.Base(name), ".json"))
	return n
}

func countCells(dir string) int {
	names, _ := filepath.Glob(filepath.Join(dir, "cells", "[0-9][0-9][0-9][0-9]*.json"))
	m := 0
	for _, n := range names {
		m = max(m, cellNumber(n))
	}
	return m
}

// lockDir takes the session folder's lock (flock), across processes.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the session: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the session: %w", err)
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

func writeJSON(name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(name, data, 0o600); err != nil {
		return fmt.Errorf("save %s: %w", filepath.Base(name), err)
	}
	return nil
}

func readJSON(name string, v any) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
