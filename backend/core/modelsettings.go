package core

import (
	"fmt"
	"strings"

	"rehome/backend/llm"
)

// ModelSettings are one model's temperature, context length and system
// prompt, as the user set them (llm.ModelSettings).
type ModelSettings = llm.ModelSettings

// The range a model setting may take.
const (
	MaxTemperature   = 2.0
	MinModelContext  = 512
	MaxModelContext  = 1 << 20
	MaxSystemPromptB = 32 << 10
)

// ModelPrefs keeps each model's settings (Settings → per model, the Ask
// screen's model settings), the same for every face: `rehome ask` and
// the window read the same record, and a face's own values (flags) go
// over them field by field (AskRequest.Settings).
type ModelPrefs struct{ c *Core }

// ModelSettings is the per-model settings service.
func (c *Core) ModelSettings() *ModelPrefs { return &ModelPrefs{c: c} }

// All are the settings of every model that has any, by model name.
func (m *ModelPrefs) All() (map[string]ModelSettings, error) {
	if err := m.c.Ready(); err != nil {
		return nil, err
	}
	return llm.LoadModelSettings(m.c.st)
}

// Get is the settings of the model called name (none set: zero).
func (m *ModelPrefs) Get(name string) (ModelSettings, error) {
	all, err := m.All()
	if err != nil {
		return ModelSettings{}, err
	}
	return all[name], nil
}

// Save keeps s for the model called name, once each field is in range
// (nothing set forgets the model's settings), and returns what was kept.
func (m *ModelPrefs) Save(name string, s ModelSettings) (ModelSettings, error) {
	if err := m.c.Ready(); err != nil {
		return ModelSettings{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return s, fmt.Errorf("%w: name the model whose settings to keep", ErrModelSettings)
	}
	s.SystemPrompt = strings.TrimSpace(s.SystemPrompt)
	if err := CheckModelSettings(s); err != nil {
		return s, err
	}
	return s, llm.SaveModelSettings(m.c.st, name, s)
}

// CheckModelSettings says which field of s is out of range, and the
// range (a flag's value is checked the same way).
func CheckModelSettings(s ModelSettings) error {
	if t := s.Temperature; t != nil && (*t < 0 || *t > MaxTemperature) {
		return fmt.Errorf("%w: temperature %g is outside 0 to %g (0 answers the same each time, 1 is the usual, higher varies more)", ErrModelSettings, *t, MaxTemperature)
	}
	if s.Context != 0 && (s.Context < MinModelContext || s.Context > MaxModelContext) {
		return fmt.Errorf("%w: a context length of %d tokens is outside %d to %d (0: the default)", ErrModelSettings, s.Context, MinModelContext, MaxModelContext)
	}
	if len(s.SystemPrompt) > MaxSystemPromptB {
		return fmt.Errorf("%w: the system prompt is %d bytes; keep it under %d", ErrModelSettings, len(s.SystemPrompt), MaxSystemPromptB)
	}
	return nil
}

// forAsk is the settings a question to model uses: the saved ones, with
// those the face gave over them (a saved record that cannot be read is
// logged and left out: the question still goes).
func (m *ModelPrefs) forAsk(model string, over ModelSettings) ModelSettings {
	saved := ModelSettings{}
	if model != "" {
		var err error
		if saved, err = m.Get(model); err != nil {
			m.c.log.Warn("read the model's settings", "model", model, "err", err)
		}
	}
	return saved.Over(over)
}

// withSystemPrompt is the assistant's instructions with the model's
// system prompt after them.
func withSystemPrompt(instructions, prompt string) string {
	switch {
	case prompt == "":
		return instructions
	case strings.TrimSpace(instructions) == "":
		return prompt
	}
	return strings.TrimRight(instructions, "\n") + "\n\n" + prompt
}
