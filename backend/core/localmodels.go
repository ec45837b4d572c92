package core

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"rehome/backend/llamarun"
	"rehome/backend/llm"
	"rehome/backend/localmodels"
	"rehome/backend/models"
)

// LocalModels is the use case of the GGUF files the user carries: register
// them, and run one with llama-server on demand (`rehome models`, `rehome
// ask --model NAME`, the Hardware screen's carried models).
type LocalModels struct {
	c   *Core
	mgr *llamarun.Manager
}

// CarriedModel is a carried model with how it fits this machine now.
type CarriedModel struct {
	localmodels.Model
	// Fit is the estimate at the context the plan would use; FitError
	// says why there is none.
	Fit      *models.FitResult `json:"fit,omitempty"`
	FitError string            `json:"fit_error,omitempty"`
	// Running is the URL of its server when one runs.
	Running string `json:"running,omitempty"`
}

// LocalModels returns the carried models' use case.
func (c *Core) LocalModels() *LocalModels {
	return lazy(c, &c.local, func() *LocalModels {
		return &LocalModels{c: c, mgr: &llamarun.Manager{LogDir: filepath.Join(c.dir, "logs")}}
	})
}

func (l *LocalModels) svc() (*localmodels.Service, error) {
	if err := l.c.Ready(); err != nil {
		return nil, err
	}
	return localmodels.NewService(l.c.st, l.c.dir), nil
}

// Add registers the file at path (copied into the data folder with Copy).
func (l *LocalModels) Add(ctx context.Context, path string, o localmodels.AddOptions) (localmodels.Model, error) {
	s, err := l.svc()
	if err != nil {
		return localmodels.Model{}, err
	}
	return s.Add(ctx, path, o)
}

// Get returns the carried model called name.
func (l *LocalModels) Get(name string) (localmodels.Model, error) {
	s, err := l.svc()
	if err != nil {
		return localmodels.Model{}, err
	}
	return s.Get(name)
}

// List returns every carried model with its fit on this machine.
func (l *LocalModels) List(ctx context.Context) ([]CarriedModel, error) {
	s, err := l.svc()
	if err != nil {
		return nil, err
	}
	all, err := s.List()
	if err != nil {
		return nil, err
	}
	mach := l.machine(ctx)
	running := map[string]string{}
	for _, srv := range l.mgr.Running() {
		running[srv.Plan.Model.Path] = srv.URL
	}
	out := make([]CarriedModel, 0, len(all))
	for _, m := range all {
		cm := CarriedModel{Model: m, Running: running[m.Path]}
		if err := m.Check(); err != nil {
			cm.FitError = err.Error()
		} else if p, err := llamarun.MakePlan(m, llamarun.Runtime{Backend: llamarun.BackendVulkan}, mach, 0); err != nil {
			cm.FitError = err.Error()
		} else {
			cm.Fit = &p.Fit
		}
		out = append(out, cm)
	}
	return out, nil
}

// Remove forgets the model (stopping its server) and deletes rehome's copy.
func (l *LocalModels) Remove(name string) (localmodels.Model, error) {
	s, err := l.svc()
	if err != nil {
		return localmodels.Model{}, err
	}
	m, err := s.Get(name)
	if err != nil {
		return m, err
	}
	l.mgr.Stop(m.Path)
	return s.Remove(name)
}

func (l *LocalModels) machine(ctx context.Context) models.Machine {
	rep, err := l.c.hw.Report(ctx)
	if err != nil {
		return models.Machine{}
	}
	return models.MachineFrom(rep)
}

// Plan says how the model called name would start here: which runtime,
// the context (0: llamarun.DefaultContext) and the layers offloaded.
func (l *LocalModels) Plan(ctx context.Context, name string, context int) (llamarun.Plan, error) {
	m, err := l.Get(name)
	if err != nil {
		return llamarun.Plan{}, err
	}
	if err := m.Check(); err != nil {
		return llamarun.Plan{}, err
	}
	rt, err := llamarun.Find(ctx)
	if err != nil {
		return llamarun.Plan{}, err
	}
	return llamarun.MakePlan(m, rt, l.machine(ctx), context)
}

// Serve starts the model called name (or reuses its running server) and
// returns a lease on it: Release it when the question ends; the server
// stops after its idle time, and when the Core closes.
func (l *LocalModels) Serve(ctx context.Context, name string, context int, progress llamarun.Progress) (*llamarun.Lease, error) {
	p, err := l.Plan(ctx, name, context)
	if err != nil {
		return nil, err
	}
	return l.mgr.Ensure(ctx, p, progress)
}

// Stop stops the model's server, if one runs.
func (l *LocalModels) Stop(name string) (bool, error) {
	m, err := l.Get(name)
	if err != nil {
		return false, err
	}
	return l.mgr.Stop(m.Path), nil
}

// Measured keeps a speed measured on this machine for the model.
func (l *LocalModels) Measured(name string, ms localmodels.Measured) error {
	s, err := l.svc()
	if err != nil {
		return err
	}
	return s.Measure(name, ms)
}

// close stops every server the Core started.
func (l *LocalModels) close() { l.mgr.Close() }

// Connection is a carried model started for a question: the server as
// the loop sees it, a client that sends its key, and the lease to release
// when the question ends.
type Connection struct {
	Server llm.Server
	Client *llm.Client
	Model  string
	Lease  *llamarun.Lease
	local  *LocalModels
}

// Release ends the question's use of the server, keeping the speed it
// measured of itself with the model's record.
func (cn *Connection) Release() {
	if cn == nil || cn.Lease == nil {
		return
	}
	if sp, err := cn.Lease.Speed(context.Background()); err == nil && sp.Tokens > 0 && cn.local != nil {
		cn.local.Measured(cn.Model, localmodels.Measured{TokensPerSecond: sp.TokensPerSecond(), Backend: cn.Lease.Plan.Runtime.Backend,
			LayersOnGPU: cn.Lease.Plan.GPULayers, At: time.Now().UTC()})
	}
	cn.Lease.Release()
}

// ForAsk starts the carried chat model called name for a question when no
// server was named: ok is false when name is no carried model (the caller
// then looks for a running server). With name "" it takes the first
// carried chat model, if any (for a machine where no server runs).
func (l *LocalModels) ForAsk(ctx context.Context, name string, contextLen int, progress llamarun.Progress) (*Connection, bool, error) {
	s, err := l.svc()
	if err != nil {
		return nil, false, err
	}
	var m localmodels.Model
	if name == "" {
		all, err := s.List()
		if err != nil {
			return nil, false, err
		}
		for _, x := range all {
			if !x.Embedding {
				m = x
				break
			}
		}
		if m.Name == "" {
			return nil, false, nil
		}
	} else if m, err = s.Get(name); err != nil {
		if errors.Is(err, localmodels.ErrNotFound) {
			return nil, false, nil
		}
		return nil, false, err
	}
	if m.Embedding {
		return nil, true, fmt.Errorf("%s is an embedding model (for knowledge), not one to ask: name a chat model (see `rehome models local`)", m.Name)
	}
	lease, err := l.Serve(ctx, m.Name, contextLen, progress)
	if err != nil {
		return nil, true, err
	}
	srv := llm.Server{Kind: "llama-server", Name: "rehome's llama-server (" + lease.Plan.Runtime.Backend + ")", BaseURL: lease.URL, Loopback: true,
		Models: []llm.ModelInfo{{ID: m.Name, Vision: m.MMProj != ""}}}
	return &Connection{Server: srv, Client: &llm.Client{BaseURL: lease.URL, APIKey: lease.Key}, Model: m.Name, Lease: lease, local: l}, true, nil
}

// PickServer is the one choice of a model server for a question, for
// every face: the server named by url; else a carried model named model
// (started by rehome); else a server running on this machine; else, with
// no model named, the first carried chat model. Release the Connection
// when the question ends. A carried model starts with contextLen tokens
// of context (0: llamarun.DefaultContext, cut to what fits).
func (l *LocalModels) PickServer(ctx context.Context, url, model, suggested string, contextLen int, progress llamarun.Progress) (*Connection, error) {
	if url == "" {
		if cn, ok, err := l.ForAsk(ctx, model, contextLen, progress); ok || err != nil {
			return cn, err
		}
	}
	srv, mdl, err := llm.Pick(ctx, url, model, llm.CatalogToolsHint, suggested)
	var none *llm.NoServerError
	if errors.As(err, &none) && url == "" && model == "" {
		if cn, ok, err := l.ForAsk(ctx, "", contextLen, progress); ok || err != nil {
			return cn, err
		}
	}
	if err != nil {
		return nil, err
	}
	return &Connection{Server: srv, Client: &llm.Client{BaseURL: srv.BaseURL}, Model: mdl}, nil
}

// Servers lists the carried chat models as one model server that rehome
// starts on demand, for a face's list of servers to ask (the Ask screen's
// model choice): its BaseURL is empty — a question naming one of its
// models and no server goes to PickServer, which starts it. None when no
// chat model is carried.
func (l *LocalModels) Servers() []llm.Server {
	s, err := l.svc()
	if err != nil {
		return nil
	}
	all, err := s.List()
	if err != nil {
		return nil
	}
	srv := llm.Server{Kind: "carried", Name: "carried model, started by rehome", Loopback: true, Models: []llm.ModelInfo{}}
	for _, m := range all {
		if !m.Embedding && m.Check() == nil {
			srv.Models = append(srv.Models, llm.ModelInfo{ID: m.Name, Tools: llm.ToolsUnknown, Vision: m.MMProj != ""})
		}
	}
	if len(srv.Models) == 0 {
		return nil
	}
	return []llm.Server{srv}
}
