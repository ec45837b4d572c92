package app

import (
	"errors"
	"log/slog"
	"sync"

	"rehome/backend/assistant"
	"rehome/backend/audit"
	"rehome/backend/hardware"
	"rehome/backend/store"
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

// App is the state behind one window or one `rehome serve`.
type App struct {
	cfg Config
	log *slog.Logger

	mu      sync.RWMutex
	emitter Emitter
	openErr error

	store      *store.Store
	assistants *assistant.Service
	audit      *audit.Service
	hw         *hardware.Cache
	sandbox    sandboxHolder

	accessOnce sync.Once
	access     *access // the files the user chose (access.go)
	asks       askHolder
	sessions   sessionHolder
}

// New returns an App; call Open before serving it.
func New(cfg Config) *App {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &App{cfg: cfg, log: cfg.Log, hw: hardware.NewCache(hardware.NewDetector(hardware.Options{}))}
}

// Open opens the store and the services on it. A failure is also kept, so
// a window can show it to the user (see Status) instead of vanishing.
func Open(a *App) error {
	path := a.cfg.DataDir + "/" + store.FileName
	st, err := store.Open(path, store.Options{})
	if err != nil {
		a.openErr = err
		a.log.Error("open store", "path", path, "err", err)
		return err
	}
	a.store = st
	a.assistants = assistant.NewService(st)
	a.audit = audit.NewService(st, a.assistants, audit.Options{Detector: a.auditDetector(), Advisor: audit.ModelsAdvisor{}})
	return nil
}

// Close stops the sandbox's Podman service (if rehome started one) and
// releases the store.
func Close(a *App) error {
	CloseSandbox(a)
	if a.store == nil {
		return nil
	}
	return a.store.Close()
}

// SetEmitter attaches the UI that receives events.
func SetEmitter(a *App, e Emitter) {
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

// errNotOpen is returned by every call while the store could not be opened.
func (a *App) ready() error {
	if a.store != nil {
		return nil
	}
	if a.openErr != nil {
		return a.openErr
	}
	return errors.New("rehome is still starting: try again in a moment")
}

// StatusInfo is what the UI shows in its header and on failure to start.
type StatusInfo struct {
	Version  string `json:"version"`
	DataDir  string `json:"data_dir"`
	Database string `json:"database"`
	Error    string `json:"error,omitempty"`
}

// Status reports the version, where data lives, and a start-up error.
func (a *App) Status() StatusInfo {
	s := StatusInfo{Version: Version, DataDir: a.cfg.DataDir}
	if a.store != nil {
		s.Database = a.store.Path()
	}
	if a.openErr != nil {
		s.Error = a.openErr.Error()
	}
	return s
}

// UIReady is called by the frontend once its first screen has rendered;
// the window smoke test waits for this log line.
func (a *App) UIReady(screen string) {
	a.log.Info("ui ready", "screen", screen)
}
