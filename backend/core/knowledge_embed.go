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

// embedder is the embedder for the next Add or search: the one a face
// chose (SetEmbedder); else the first carried embedding model, when one
// is registered; else none (keywords alone).
func (k *Knowledge) embedder() knowledge.Embedder {
	k.mu.Lock()
	chosen := k.chosen
	k.mu.Unlock()
	if chosen != nil {
		return chosen
	}
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

// useEmbedder points the service at the embedder for this call.
func (k *Knowledge) useEmbedder() { k.svc.SetEmbedder(k.embedder()) }

// SetEmbedder makes the next Adds embed chunks with e (nil: the carried
// embedding model, if one is registered, else keywords alone); searches
// ask the model the chunks were embedded with.
func (k *Knowledge) SetEmbedder(e knowledge.Embedder) {
	k.mu.Lock()
	k.chosen = e
	k.mu.Unlock()
	k.useEmbedder()
}

// isCarried says whether a vectors' server is a carried model's.
func isCarried(server string) bool { return strings.HasPrefix(server, carriedServer) }
