package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"rehome/backend/llm"
	"rehome/backend/models"
)

// Pulls is the use case of getting a catalog model where the network
// allows it: the Ollama server on this machine pulls it (its `POST
// /api/pull`), with progress and cancel (`rehome models pull NAME`, the
// Hardware screen's Pull button). rehome itself never downloads: without
// Ollama it says which .gguf file to carry.
type Pulls struct {
	c       *Core
	mu      sync.Mutex
	running map[string]context.CancelFunc
}

// PullSource says whether models can be pulled here, and by which server.
type PullSource struct {
	// Ollama is the URL of the Ollama server that pulls; "" when none
	// answers.
	Ollama string `json:"ollama,omitempty"`
	// Why says it in words: where Ollama was looked for when it was not
	// found.
	Why string `json:"why"`
}

// Pulls returns the pull use case.
func (c *Core) Pulls() *Pulls {
	return lazy(c, &c.pulls, func() *Pulls { return &Pulls{c: c, running: map[string]context.CancelFunc{}} })
}

// Source finds the Ollama server that would pull ($OLLAMA_HOST, else
// 127.0.0.1:11434).
func (p *Pulls) Source(ctx context.Context) PullSource {
	root := llm.OllamaRoot()
	if llm.OllamaRunning(ctx, root) {
		return PullSource{Ollama: root, Why: "Ollama at " + root + " pulls models"}
	}
	return PullSource{Why: "no Ollama server answers at " + root + " (start it with `ollama serve`, or carry the model's .gguf file)"}
}

// PullTarget is what a name pulls: the Ollama tag, and the catalog's
// model when the name is one of its ids or tags.
type PullTarget struct {
	Tag   string        `json:"tag"`
	Model *models.Model `json:"model,omitempty"`
}

// Target resolves name: a catalog id ("qwen2.5-7b-instruct") pulls the
// catalog's Ollama tag; any other name is taken as an Ollama tag as it
// is ("llama3.2:3b", "hf.co/user/repo").
func (p *Pulls) Target(name string) (PullTarget, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return PullTarget{}, errors.New("name the model to pull: a catalog id (`rehome models` lists them) or an Ollama tag such as llama3.2:3b")
	}
	all, err := models.Catalog()
	if err != nil {
		return PullTarget{}, err
	}
	for _, m := range all {
		if strings.EqualFold(m.ID, name) || (m.Ollama != "" && strings.EqualFold(m.Ollama, name)) {
			if m.Ollama == "" {
				return PullTarget{}, fmt.Errorf("no build of %s in Ollama's library: %s", m.Name, carryFor(m))
			}
			return PullTarget{Tag: m.Ollama, Model: &m}, nil
		}
	}
	if strings.ContainsAny(name, " \t\n") {
		return PullTarget{}, fmt.Errorf("%q is neither a catalog id nor an Ollama tag (`rehome models` lists the catalog's)", name)
	}
	return PullTarget{Tag: name}, nil
}

// Pull has Ollama pull name (see Target), calling progress for each step,
// and returns the last progress. Ctrl-C, Cancel or the window closing end
// it with llm.ErrPullCancelled (Ollama keeps what it has and resumes next
// time). Without Ollama the error wraps ErrNoOllama and names the file to
// carry.
func (p *Pulls) Pull(ctx context.Context, name string, progress func(llm.PullProgress)) (llm.PullProgress, error) {
	t, err := p.Target(name)
	if err != nil {
		return llm.PullProgress{}, err
	}
	src := p.Source(ctx)
	if src.Ollama == "" {
		carry := "carry the model's .gguf file and run `rehome models add FILE`"
		if t.Model != nil {
			carry = carryFor(*t.Model)
		}
		return llm.PullProgress{}, fmt.Errorf("%w: %s; without it, %s", ErrNoOllama, src.Why, carry)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p.mu.Lock()
	if _, busy := p.running[t.Tag]; busy {
		p.mu.Unlock()
		return llm.PullProgress{}, fmt.Errorf("%w: %s (wait for it, or cancel it)", ErrPulling, t.Tag)
	}
	p.running[t.Tag] = cancel
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.running, t.Tag)
		p.mu.Unlock()
	}()
	var last llm.PullProgress
	err = llm.OllamaPull(ctx, src.Ollama, t.Tag, func(pp llm.PullProgress) {
		last = pp
		if progress != nil {
			progress(pp)
		}
	})
	return last, err
}

// Cancel stops the pull of name; false when none runs.
func (p *Pulls) Cancel(name string) bool {
	t, err := p.Target(name)
	if err != nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	cancel, ok := p.running[t.Tag]
	if ok {
		cancel()
	}
	return ok
}

// carryFor says which file to carry for m at the quantization Ollama's
// library holds (Q4_K_M where the catalog offers it).
func carryFor(m models.Model) string {
	q := "Q4_K_M"
	if len(m.Quants) > 0 && !containsFold(m.Quants, q) {
		q = m.Quants[0]
	}
	r, err := models.Fit(m, q, models.Options{Context: 4096, KVCache: "f16"}, models.Machine{})
	if err != nil {
		return "carry the model's .gguf file and run `rehome models add FILE`"
	}
	return models.CarryLine(r)
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
