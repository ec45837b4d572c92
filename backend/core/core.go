package core

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"rehome/backend/assistant"
	"rehome/backend/audit"
	"rehome/backend/hardware"
	"rehome/backend/store"
	"rehome/sandbox"
)

// Options configure a Core. The zero value suits the window.
type Options struct {
	// Log receives what the services log; nil discards it.
	Log *slog.Logger
	// Hardware configures the detection (a sysfs root, an nvidia-smi).
	Hardware hardware.Options
	// Sandbox configures the engine, started on first use (the CLI's
	// --podman and --runtime, a service that lingers for the next
	// command).
	Sandbox sandbox.Options
	// StoreTimeout is how long Open waits for another rehome to release
	// the database (default: one second).
	StoreTimeout time.Duration
	// Brief holds the database only for the moment a record is read or
	// written (Open only checks that it can be opened), so that many
	// `rehome run`s share one data folder. The run service alone is then
	// available: Store, Assistants and Audits are nil.
	Brief bool
}

// briefWait is how long a brief Core waits on the database for one record:
// other runs hold it for milliseconds each; a window or `rehome serve` for
// as long as it is open, which this is not meant to outlast.
const briefWait = 20 * time.Second

// Core is one data folder's services. Its methods are safe for concurrent
// use once Open has returned.
type Core struct {
	dir    string
	opts   Options
	log    *slog.Logger
	hw     *hardware.Cache
	runSvc *Runs
	askSvc *Asks
	open   openSessions // sessions_open.go: the open sessions, one eviction

	st         *store.Store
	assistants *assistant.Service
	audits     *audit.Service
	openErr    error

	engMu  sync.Mutex
	engine *sandbox.Engine
	know   *Knowledge
	local  *LocalModels
	pulls  *Pulls
	// runs counts the runs in progress: the engine is stopped only once
	// they have removed their sandboxes (their context ended first).
	runs sync.WaitGroup

	actOnce sync.Once
	act     *Actions // actions.go: one credentials file lock per Core

	mcpOnce sync.Once
	mcpSvc  *MCPServers // mcphost.go: the MCP servers' connections

	brMu sync.Mutex
	br   *Browse // browse.go: kiwix-serve, the page fetcher
}

// New returns a Core over the data folder dir. It touches nothing yet:
// hardware detection and the sandbox work before Open (and after a failed
// Open), the services on the database only after it.
func New(dir string, opts Options) *Core {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	c := &Core{dir: dir, opts: opts, log: opts.Log, hw: hardware.NewCache(hardware.NewDetector(opts.Hardware))}
	c.runSvc = &Runs{c: c}
	c.askSvc = &Asks{c: c}
	return c
}

// Open opens the database and wires the services on it. Its error is also
// kept (see Err), so that a window can show it instead of vanishing.
func (c *Core) Open() error {
	path := filepath.Join(c.dir, store.FileName)
	st, err := store.Open(path, store.Options{Timeout: c.opts.StoreTimeout})
	if err != nil {
		c.openErr = err
		c.log.Error("open store", "path", path, "err", err)
		return err
	}
	if c.opts.Brief {
		return st.Close()
	}
	c.st = st
	c.assistants = assistant.NewService(st, filepath.Join(c.dir, assistant.KnowledgeDir))
	c.audits = audit.NewService(st, c.assistants, audit.Options{Detector: audit.HardwareDetector(c.hw), Advisor: audit.ModelsAdvisor{},
		Browsing: c.browsingFacts, MCP: c.mcpFacts, Conversations: c.movedConversations})
	return nil
}

// Close stops the sandbox's engine (and a Podman service rehome started
// that does not linger) and releases the database.
func (c *Core) Close() error {
	c.askSvc.CloseAll()
	c.open.closeAll()
	if c.mcpSvc != nil {
		c.mcpSvc.CloseAll()
	}
	if k := c.knowledgeIfOpen(); k != nil {
		if err := k.Close(); err != nil {
			c.log.Warn("close knowledge indexes", "err", err)
		}
	}
	c.closeBrowse()
	c.CloseEngine()
	c.engMu.Lock()
	local := c.local
	c.engMu.Unlock()
	if local != nil {
		local.close()
	}
	if c.st == nil {
		return nil
	}
	err := c.st.Close()
	c.st = nil
	return err
}

// Err is why Open failed; nil when it did not (or has not run).
func (c *Core) Err() error { return c.openErr }

// Ready is nil once the services on the database can be used, else why
// not.
func (c *Core) Ready() error {
	switch {
	case c.st != nil:
		return nil
	case c.openErr != nil:
		return c.openErr
	case c.opts.Brief:
		return errors.New("this command holds the database only to read or write a run's record")
	}
	return errors.New("rehome is still starting: try again in a moment")
}

// DataDir is the data folder.
func (c *Core) DataDir() string { return c.dir }

// Store is the open database (nil before Open, after a failed one, or in
// Brief mode), for core's own tests and the backend: a face never takes it
// (the faces' import test holds them to that); it asks a service of core.
func (c *Core) Store() *store.Store { return c.st }

// Audits is the audit service, wired to the hardware detection and the
// fit advisor (nil like Store).
func (c *Core) Audits() *Audits {
	if c.audits == nil {
		return nil
	}
	return &Audits{c.audits}
}

// Hardware is the hardware detection, run once and kept.
func (c *Core) Hardware() *Hardware {
	if c.hw == nil {
		return nil
	}
	return &Hardware{c.hw}
}

// Runs is the run service.
func (c *Core) Runs() *Runs { return c.runSvc }

// lazy is *p, made by mk on its first use, under the engine's lock: the
// services that keep state of their own (knowledge, carried models,
// pulls) are made once for the Core's life.
func lazy[T any](c *Core, p **T, mk func() *T) *T {
	c.engMu.Lock()
	defer c.engMu.Unlock()
	if *p == nil {
		*p = mk()
	}
	return *p
}

// Engine returns the sandbox engine, starting it on first use: it connects
// to Podman (or starts a private service) once for the Core's life. A
// failure is not kept: the next call tries again (Podman may have been
// installed or started since). ctx bounds the start only.
func (c *Core) Engine(ctx context.Context) (*sandbox.Engine, error) {
	c.engMu.Lock()
	defer c.engMu.Unlock()
	if c.engine != nil && c.engine.Lost() != nil {
		// The link to the team host dropped: connect again (its sweep
		// removes the sandboxes the lost link left).
		c.engine.Close()
		c.engine = nil
	}
	if c.engine != nil {
		return c.engine, nil
	}
	e, err := sandbox.New(ctx, c.engineOptions())
	if err != nil {
		c.log.Warn("sandbox unavailable", "err", err)
		return nil, err
	}
	c.engine = e
	return e, nil
}

// Started is the engine if it is started, else nil (for what must not
// start one, such as stopping).
func (c *Core) Started() *sandbox.Engine {
	c.engMu.Lock()
	defer c.engMu.Unlock()
	return c.engine
}

// engineCloseWait bounds how long CloseEngine waits for runs in progress
// to remove their sandboxes (a run whose context has ended kills and
// removes its container within seconds).
const engineCloseWait = 20 * time.Second

// CloseEngine stops the engine, if started (and a Podman service rehome
// started for it that does not linger), once the runs in progress have
// cleaned up: cancel their context first.
func (c *Core) CloseEngine() {
	done := make(chan struct{})
	go func() { c.runs.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(engineCloseWait):
		c.log.Warn("runs still going as the sandbox closes")
	}
	c.engMu.Lock()
	defer c.engMu.Unlock()
	if c.engine != nil {
		c.engine.Close()
		c.engine = nil
	}
}

// db runs fn with the database: the open one, or in Brief mode one opened
// for fn alone.
func (c *Core) db(fn func(*store.Store) error) error {
	if c.st != nil {
		return fn(c.st)
	}
	if !c.opts.Brief {
		return c.Ready()
	}
	st, err := store.Open(filepath.Join(c.dir, store.FileName), store.Options{Timeout: briefWait})
	if err != nil {
		return err
	}
	if err := fn(st); err != nil {
		st.Close()
		return err
	}
	return st.Close()
}

func (c *Core) knowledgeIfOpen() *Knowledge {
	c.engMu.Lock()
	defer c.engMu.Unlock()
	return c.know
}
