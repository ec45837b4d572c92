package sandbox

import (
	"io"
	"path/filepath"
	"sync"
	"time"
)

// Sessions: a Code Interpreter that keeps its state across cells, like
// ChatGPT's Jupyter kernel. A session is one sandbox container — the same
// hardened spec as a one-shot run (buildSpec), with no wall-clock kill of
// the container but an idle time — whose PID 1 is the supervisor of
// sandbox/recipe/kernel.py. The supervisor keeps a Python kernel as its
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
	// labelSession carries a session's id on its container.
	labelSession = "io.rehome.session"
	// labelSessions names the folder that holds the session's folder (a
	// data folder's sessions/): the cap on sessions at once counts only
	// that folder's, which its `rehome session list` shows.
	labelSessions = "io.rehome.sessions"
	kernelPath    = "/opt/rehome/kernel.py"

	// sessionSchema is the version of session.json and the cell records.
	sessionSchema = 1

	// DefaultIdleTimeout ends a session no cell has used for that long.
	DefaultIdleTimeout = 30 * time.Minute
	// defaultMaxSessions is how many sessions may run at once.
	defaultMaxSessions = 4
	// interruptGrace is how long a cell has to stop after SIGINT before its
	// kernel is killed (and the session's state lost).
	interruptGrace = 2 * time.Second
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
	// defaultMaxSessions).
	MaxSessions int `json:"max_sessions"`
	// Preload names modules the kernel imports while it waits for its
	// first cell (default pandas: the first cell after a drop does not
	// pay for it). Empty slice: none.
	Preload []string `json:"preload"`
	// MaxKeptBytes bounds the bytes of files the session's cells keep on
	// disk (default defaultSessionKeep); a file written again with the same
	// bytes is kept once.
	MaxKeptBytes int64 `json:"max_kept_bytes,omitempty"`
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
	// MaxKeptBytes bounds the bytes of files the session keeps.
	MaxKeptBytes int64       `json:"max_kept_bytes,omitempty"`
	Created      time.Time   `json:"created"`
	Image        string      `json:"image"`
	Runtime      string      `json:"runtime"`
	Rootless     bool        `json:"rootless"`
	Enforcement  Enforcement `json:"enforcement"`
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
	// readDone is closed once the frames' stream has ended (after the
	// quit frame, the relay closes it only once the container is gone).
	readDone chan struct{}
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
