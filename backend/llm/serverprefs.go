package llm

import (
	"fmt"
	"strings"

	"rehome/backend/store"
)

// ServerPrefsSchema is the version of the ServerPrefs record this build
// writes.
const ServerPrefsSchema = 1

// serverPrefsKey is the Settings record that holds ServerPrefs.
const serverPrefsKey = "model-servers"

// ServerPrefs are the model servers the user keeps (Settings → Model
// servers) and the server and model last chosen, overall and per
// assistant, so that Ask opens where the user left it.
type ServerPrefs struct {
	Schema int `json:"schema"`
	// Servers are base URLs the user added (another port, another
	// machine); the default ports are always looked at.
	Servers []string `json:"servers"`
	// Last is the choice of the latest question without an assistant.
	Last ServerChoice `json:"last"`
	// PerAssistant is the latest choice per assistant id.
	PerAssistant map[string]ServerChoice `json:"per_assistant"`
}

// ServerChoice is a server's base URL and one of its models.
type ServerChoice struct {
	Server string `json:"server"`
	Model  string `json:"model"`
}

// LoadServerPrefs reads the kept servers and choices (none yet: empty).
func LoadServerPrefs(st *store.Store) (ServerPrefs, error) {
	p := ServerPrefs{Schema: ServerPrefsSchema}
	err := st.GetChecked(store.Settings, serverPrefsKey, &p, &p.Schema, ServerPrefsSchema)
	if p.Servers == nil {
		p.Servers = []string{}
	}
	if p.PerAssistant == nil {
		p.PerAssistant = map[string]ServerChoice{}
	}
	return p, err
}

// SaveServerPrefs keeps p, each server URL written as a base URL once; a
// URL that is not one says which.
func SaveServerPrefs(st *store.Store, p ServerPrefs) (ServerPrefs, error) {
	seen := map[string]bool{}
	urls := []string{}
	for _, raw := range p.Servers {
		if strings.TrimSpace(raw) == "" {
			continue
		}
		u, err := NormalizeBaseURL(raw)
		if err != nil {
			return p, err
		}
		if !seen[u] {
			seen[u] = true
			urls = append(urls, u)
		}
	}
	p.Servers, p.Schema = urls, ServerPrefsSchema
	if p.PerAssistant == nil {
		p.PerAssistant = map[string]ServerChoice{}
	}
	if err := st.Put(store.Settings, serverPrefsKey, p); err != nil {
		return p, fmt.Errorf("keep the model servers: %w", err)
	}
	return p, nil
}

// RememberChoice keeps the server and model a question was asked with,
// for the assistant (or overall when assistantID is "").
func RememberChoice(st *store.Store, assistantID string, c ServerChoice) error {
	p, err := LoadServerPrefs(st)
	if err != nil {
		return err
	}
	if assistantID == "" {
		p.Last = c
	} else {
		p.PerAssistant[assistantID] = c
	}
	_, err = SaveServerPrefs(st, p)
	return err
}
