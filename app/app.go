package app

import (
	"context"
	"log/slog"
	"sync"

	"rehome/backend/core"
)

// Version is rehome's version, set by main.
var Version = "dev"

// Config is what the App needs to start.
type Config struct {
	DataDir string       // where the database and logs live
	Log     *slog.Logger // never nil after New
}

// Emitter delivers progress events to whichever UI is attached.
type Emitter interface {
	Emit(event string, payload any)
}

// App is the state behind one window or one `rehome serve`: the UI's
// methods over the core's services. Only the App is bound to the UI; its
// Host opens and closes it.
type App struct {
	// The bound services, one per area (services.go): each method the UI
	// calls is on one of them. Embedded, so Go callers still reach a
	// method as a.Name.
	*AssistantService
	*ActionService
	*KnowledgeService
	*AuditService
	*ModelService
	*RunService
	*AskService
	*SystemService

	cfg   Config
	log   *slog.Logger
	core  *core.Core
	fixes fixJobs // firstrun.go: the checklist's fixes under way

	// ctx is the App's: every call it makes derives from it, and Close
	// (the window's shutdown, the end of `rehome serve`) cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.RWMutex
	emitter Emitter

	accessOnce sync.Once
	access     *access // the files the user chose (access.go)
	asks       askHolder
	canvasRuns askHolder  // the canvas code running, by conversation (canvas.go)
	confirms   confirmBox // action calls waiting for the user (actions.go)

	knowMu   sync.Mutex
	knowSeq  int
	knowAdds map[string]map[int]context.CancelFunc // knowledge adds in progress, per assistant (knowledge.go)
}

// Host holds an App for its window or `rehome serve`: it opens it, attaches
// the UI, and closes it. The App it holds is what gets bound; the Host is
// not, so that the UI cannot call Open or Close.
type Host struct {
	*App
}

// New returns the Host of a new App; call Open before serving it.
func New(cfg Config) *Host {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &App{cfg: cfg, log: cfg.Log, core: core.New(cfg.DataDir, core.Options{Log: cfg.Log}), ctx: ctx, cancel: cancel}
	a.bindServices()
	return &Host{a}
}

// Open opens the data folder's services (see core.Core.Open). A failure
// is also kept, so a window can show it to the user (see Status) instead
// of vanishing.
func (h *Host) Open() error { return h.core.Open() }

// Core is the App's core, for the terminal's commands that the holder of
// the data folder runs (app/cli's door).
func (h *Host) Core() *core.Core { return h.core }

// Close cancels what the App is doing (runs, image loads, answers), stops
// its sessions and the sandbox's Podman service (if rehome started one),
// and releases the store.
func (h *Host) Close() error {
	h.cancel()
	h.CloseSandbox()
	return h.core.Close()
}

// CloseSandbox stops the sessions and the Podman service rehome started
// for the App, if any (Podman's service also dies with the process).
func (h *Host) CloseSandbox() { h.closeSandbox() }

func (a *App) closeSandbox() { a.core.CloseSandbox() }

// SetEmitter attaches the UI that receives events.
func (h *Host) SetEmitter(e Emitter) { h.setEmitter(e) }

func (a *App) setEmitter(e Emitter) {
	a.mu.Lock()
	a.emitter = e
	a.mu.Unlock()
}

// emit sends a progress event to the attached UI, if any.
func (a *App) emit(event string, payload any) {
	a.mu.RLock()
	e := a.emitter
	a.mu.RUnlock()
	if e != nil {
		e.Emit(event, payload)
	}
}

// FilesOpened tells the UI that n files were opened with rehome (the
// file manager's "Open with", a second launch): the Code Interpreter takes
// them (OpenedFiles). The window's own events go out through emit too, so
// the UI's onEvent types them all.
func (h *Host) FilesOpened(n int) { h.filesOpened(n) }

func (a *App) filesOpened(n int) { a.emit("file:open", n) }

// ready is nil when the services on the store can be used, else the
// reason (the store could not be opened, or is not open yet).
func (a *App) ready() error { return a.core.Ready() }

// onStore is a bound method on the store's services: the reason they
// cannot be used yet (a.ready), with T's zero value, or what call on the
// core returns.
func onStore[T any](a *App, call func(c *core.Core) (T, error)) (T, error) {
	if err := a.ready(); err != nil {
		var zero T
		return zero, err
	}
	return call(a.core)
}

// doOnStore is onStore for a method that answers only an error.
func doOnStore(a *App, call func(c *core.Core) error) error {
	if err := a.ready(); err != nil {
		return err
	}
	return call(a.core)
}

// value is what a bound method gives of a core call that returns a
// pointer: the value, or the zero value with the error.
func value[T any](p *T, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, err
	}
	return *p, nil
}

// StatusInfo is what the UI shows in its header and on failure to start.
type StatusInfo struct {
	Version  string `json:"version"`
	DataDir  string `json:"data_dir"`
	Database string `json:"database"`
	Error    string `json:"error,omitempty"`
}

// Status reports the version, where data lives, and a start-up error.
func (svc *SystemService) Status() StatusInfo {
	a := svc.app
	s := StatusInfo{Version: Version, DataDir: a.cfg.DataDir}
	s.Database = a.core.DatabasePath()
	if err := a.core.Err(); err != nil {
		s.Error = err.Error()
	}
	return s
}

// UIReady is called by the frontend once its first screen has rendered;
// the window smoke test waits for this log line.
func (svc *SystemService) UIReady(screen string) {
	a := svc.app
	a.log.Info("ui ready", "screen", screen)
}
