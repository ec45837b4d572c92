package llm

import (
	"context"
	"fmt"
	"strings"
	"time"

	"rehome/backend/audit"
	"rehome/backend/store"
)

// Pick finds the server (the one at url, or the first on this machine
// with a model) and the model (the one named, or the server's first that
// calls tools, or its first). hint answers from rehome's catalog for
// servers that cannot say; suggested is the model to tell the user to
// pull when there is none.
func Pick(ctx context.Context, url, model string, hint func(string) (bool, bool, bool), suggested string) (Server, string, error) {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	servers, err := Discover(dctx, DiscoverOptions{URL: url, ToolsHint: hint})
	if err != nil {
		return Server{}, "", err
	}
	if len(servers) == 0 {
		return Server{}, "", &NoServerError{Suggested: suggested}
	}
	for _, s := range servers {
		if model != "" {
			if len(s.Models) == 0 && url != "" {
				return s, model, nil // a server that lists nothing may still serve it
			}
			for _, m := range s.Models {
				if m.ID == model {
					return s, model, nil
				}
			}
			continue
		}
		for _, m := range s.Models {
			if m.Tools == ToolsYes {
				return s, m.ID, nil
			}
		}
		if len(s.Models) > 0 {
			return s, s.Models[0].ID, nil
		}
	}
	if model != "" {
		var have []string
		for _, s := range servers {
			for _, m := range s.Models {
				have = append(have, m.ID)
			}
		}
		return Server{}, "", fmt.Errorf("no server here offers model %q (they offer: %s; with Ollama: `ollama pull %s`)", model, strings.Join(have, ", "), model)
	}
	return Server{}, "", fmt.Errorf("the model server at %s has no model: %s", servers[0].BaseURL, PullHint(suggested))
}

// SuggestedModel is the model to tell the user to pull for an assistant
// ("" for none): its default model, else the text model its latest audit
// chose, else the one the latest audit chose; "" when there is no audit.
func SuggestedModel(st *store.Store, assistantID string, defaultModel string) string {
	if defaultModel != "" {
		return defaultModel
	}
	if st == nil {
		return ""
	}
	recs, err := store.List[audit.Record](st, store.Audits, 50)
	if err != nil || len(recs) == 0 {
		return ""
	}
	if assistantID != "" {
		for _, r := range recs {
			for _, aa := range r.Assistants {
				if aa.Subject.AssistantID == assistantID {
					if m := r.ModelFor(aa); m != nil {
						return m.Tag
					}
				}
			}
		}
	}
	if recs[0].TextModel != nil {
		return recs[0].TextModel.Tag
	}
	return ""
}

// PullHint says how to get a model; suggested is the model the audit
// chose ("" when there is no audit).
func PullHint(suggested string) string {
	why := "the model the audit chose"
	if suggested == "" {
		suggested, why = "qwen2.5:7b", "a 7B model that calls tools"
	}
	return fmt.Sprintf("`ollama pull %s` (%s), or start llama-server with a GGUF: `llama-server -m MODEL.gguf --jinja`", suggested, why)
}

// StartHint says how to start a model server.
func StartHint(suggested string) string {
	return "Start one — Ollama: `ollama serve`, then " + PullHint(suggested) + "."
}

// NoServerError is Pick's error when no model server answers on this
// machine's known ports: it says where rehome looked and how to start one;
// each face adds how to name a server elsewhere (a flag, a field).
type NoServerError struct {
	// Suggested is the model to tell the user to pull ("" for rehome's
	// general suggestion).
	Suggested string
}

// Error says where rehome looked and how to start a server.
func (e *NoServerError) Error() string { return NoServerHint(e.Suggested) }

// NoServerHint says where rehome looked and how to start a server.
func NoServerHint(suggested string) string {
	var ports []string
	for _, k := range KnownServers {
		ports = append(ports, fmt.Sprintf("%s %d", k.Name, k.Port))
	}
	return fmt.Sprintf("no model server found on this machine (looked at 127.0.0.1: %s). %s",
		strings.Join(ports, ", "), StartHint(suggested))
}

// CatalogToolsHint answers from the audit's catalog whether an Ollama tag
// calls tools and reads images, for servers that cannot say.
func CatalogToolsHint(model string) (tools, vision, ok bool) {
	for _, m := range audit.DefaultCatalog().FallbackModels {
		if m.Tag == model || strings.TrimSuffix(model, ":latest") == m.Tag {
			return m.Tools, m.Vision, true
		}
	}
	if m, ok := catalogModel(model); ok {
		return m.Tools, m.Vision, true
	}
	return false, false, false
}

// ReadsImages says whether the server's model reads images (per the
// server, or rehome's catalog for servers that cannot say).
func (s Server) ReadsImages(model string) bool {
	for _, m := range s.Models {
		if m.ID == model {
			return m.Vision
		}
	}
	_, vision, _ := CatalogToolsHint(model)
	return vision
}
