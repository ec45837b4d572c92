package core

import (
	"context"
	"strings"

	"rehome/backend/knowledge"
	"rehome/backend/llm"
)

// carriedServer is what the vectors of a carried embedding model record
// as their server: rehome starts it on demand (a new port and key each
// time), so the server is named by the model.
const carriedServer = "rehome:carried:"

// carriedEmbedder embeds with a carried embedding model (`rehome models
// add`, marked embedding), which rehome starts with llama-server through
// LocalModels — the runtime ask uses: loopback, a free port, its own
// key — for each call, the server staying up for its idle time.
type carriedEmbedder struct {
	l    *LocalModels
	name string
}

func (e carriedEmbedder) Model() string  { return e.name }
func (e carriedEmbedder) Server() string { return carriedServer + e.name }

func (e carriedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	lease, err := e.l.Serve(ctx, e.name, 0, nil)
	if err != nil {
		return nil, err
	}
	defer lease.Release()
	inner := knowledge.ServerEmbedder{Client: &llm.Client{BaseURL: lease.URL, APIKey: lease.Key}, Name: e.name}
	return inner.Embed(ctx, texts)
}

// embedderFor is the embedder for the next Add or search of the
// assistant id: the one a face chose (SetEmbedder: the user changes it);
// else the one its chunks were embedded with, kept; else none when its
// files were indexed by keywords alone (that was its choice, kept too);
// else, for an assistant whose knowledge never had any indexed file, the
// first carried embedding model, when one is registered. A carried
// model registered later never re-embeds an assistant quietly.
func (k *Knowledge) embedderFor(id string) knowledge.Embedder {
	k.mu.Lock()
	chosen := k.chosen
	k.mu.Unlock()
	if chosen != nil {
		return chosen
	}
	if e, ok := k.svc.Embedding(id); ok {
		if isCarried(e.Server) {
			return carriedEmbedder{l: k.c.LocalModels(), name: strings.TrimPrefix(e.Server, carriedServer)}
		}
		return knowledge.ServerEmbedder{Client: &llm.Client{BaseURL: e.Server}, Name: e.Model}
	}
	files, err := k.svc.List(id)
	if err != nil {
		return nil
	}
	for _, f := range files {
		if f.State == knowledge.StateIndexed {
			return nil
		}
	}
	return k.carried()
}

// carried is the first carried embedding model that is registered and
// whose file is there, else nil.
func (k *Knowledge) carried() knowledge.Embedder {
	if k.c.Ready() != nil {
		return nil
	}
	s, err := k.c.LocalModels().svc()
	if err != nil {
		return nil
	}
	all, err := s.List()
	if err != nil {
		return nil
	}
	for _, m := range all {
		if m.Embedding && m.Check() == nil {
			return carriedEmbedder{l: k.c.LocalModels(), name: m.Name}
		}
	}
	return nil
}

// useEmbedder points the service at the embedder for this call on the
// assistant id.
func (k *Knowledge) useEmbedder(id string) { k.svc.SetEmbedder(k.embedderFor(id)) }

// SetEmbedder makes the next Adds embed chunks with e, re-embedding an
// assistant whose chunks another model embedded (nil: each assistant
// keeps the model it has, see embedderFor); searches ask the model the
// chunks were embedded with.
func (k *Knowledge) SetEmbedder(e knowledge.Embedder) {
	k.mu.Lock()
	k.chosen = e
	k.mu.Unlock()
}

// isCarried says whether a vectors' server is a carried model's.
func isCarried(server string) bool { return strings.HasPrefix(server, carriedServer) }
