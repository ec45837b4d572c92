package llm

import (
	"fmt"

	"rehome/backend/store"
)

// ModelSettingsSchema is the version of the model settings record this
// build writes.
const ModelSettingsSchema = 1

// modelSettingsKey is the Settings record that holds every model's
// settings.
const modelSettingsKey = "model-settings"

// ModelSettings are what the user set for one model (by its name), used
// by every question asked with it: nil or zero fields leave the choice to
// the server (or to rehome's default for a carried model).
type ModelSettings struct {
	// Temperature is sent with each request (0–2); nil: the server's.
	Temperature *float64 `json:"temperature,omitempty"`
	// Context is the context length in tokens: a carried model's
	// llama-server is started with it (-c); a served model's server
	// decides its own (the OpenAI API has no field for it). 0: default.
	Context int `json:"context,omitempty"`
	// SystemPrompt is added to the system prompt, after the assistant's
	// instructions (alone when no assistant is chosen).
	SystemPrompt string `json:"system_prompt,omitempty"`
}

// IsZero says nothing is set.
func (m ModelSettings) IsZero() bool {
	return m.Temperature == nil && m.Context == 0 && m.SystemPrompt == ""
}

// Over is m with each field that o sets taken from o (flags over saved).
func (m ModelSettings) Over(o ModelSettings) ModelSettings {
	if o.Temperature != nil {
		m.Temperature = o.Temperature
	}
	if o.Context != 0 {
		m.Context = o.Context
	}
	if o.SystemPrompt != "" {
		m.SystemPrompt = o.SystemPrompt
	}
	return m
}

type modelSettingsRecord struct {
	Schema int                      `json:"schema"`
	Models map[string]ModelSettings `json:"models"`
}

// LoadModelSettings reads every model's settings, by model name (none
// yet: empty).
func LoadModelSettings(st *store.Store) (map[string]ModelSettings, error) {
	r := modelSettingsRecord{Schema: ModelSettingsSchema}
	err := st.GetChecked(store.Settings, modelSettingsKey, &r, &r.Schema, ModelSettingsSchema)
	if r.Models == nil {
		r.Models = map[string]ModelSettings{}
	}
	return r.Models, err
}

// SaveModelSettings keeps s for the model called name (nothing set:
// forgets them), in one transaction with what other models have.
func SaveModelSettings(st *store.Store, name string, s ModelSettings) error {
	change := func(r *modelSettingsRecord) {
		r.Schema = ModelSettingsSchema
		if r.Models == nil {
			r.Models = map[string]ModelSettings{}
		}
		if s.IsZero() {
			delete(r.Models, name)
		} else {
			r.Models[name] = s
		}
	}
	var r modelSettingsRecord
	err := st.Upsert(store.Settings, modelSettingsKey, &r, func() { r = modelSettingsRecord{} }, func() error {
		if err := store.CheckSchema(store.Settings, modelSettingsKey, r.Schema, ModelSettingsSchema); err != nil {
			return err
		}
		change(&r)
		return nil
	})
	if err != nil {
		return fmt.Errorf("keep the settings of %s: %w", name, err)
	}
	return nil
}
