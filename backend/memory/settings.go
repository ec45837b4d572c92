package memory

import (
	"errors"
	"fmt"

	"rehome/backend/store"
)

// What an assistant does with memory.
const (
	ModeOn  = "on"  // reads and saves the memories every chat shares
	ModeOff = "off" // no memory: none read, none saved
	ModeOwn = "own" // reads and saves memories of its own (a GPT's default)
)

// settingsID is the Settings record that holds the memory choices.
const settingsID = "memory"

// settingsSchema is the version of the Settings record this build writes.
const settingsSchema = 1

// Settings are the memory choices: off for every chat, and each
// assistant's mode.
type Settings struct {
	Schema int `json:"schema"`
	// Off stops memory everywhere (ChatGPT's "Reference saved memories"
	// turned off): nothing read, nothing saved.
	Off bool `json:"off"`
	// Assistants maps an assistant's id to its mode; one not named takes
	// ModeOwn, as a custom GPT's memory is its own.
	Assistants map[string]string `json:"assistants"`
}

// Settings returns the memory choices.
func (s *Service) Settings() (Settings, error) {
	x := Settings{Schema: settingsSchema}
	err := s.st.GetChecked(store.Settings, settingsID, &x, &x.Schema, settingsSchema)
	if x.Assistants == nil {
		x.Assistants = map[string]string{}
	}
	return x, err
}

// Mode is what the chats of an assistant do ("" for a chat with none):
// off when memory is off, else the assistant's mode; a chat without an
// assistant shares the memories.
func (x Settings) Mode(assistant string) string {
	switch {
	case x.Off:
		return ModeOff
	case assistant == "":
		return ModeOn
	case x.Assistants[assistant] != "":
		return x.Assistants[assistant]
	}
	return ModeOwn
}

// SetOff turns memory off (or on again) everywhere.
func (s *Service) SetOff(off bool) (Settings, error) {
	return s.change(func(x *Settings) error { x.Off = off; return nil })
}

// SetMode sets an assistant's mode: on, off or own.
func (s *Service) SetMode(assistant, mode string) (Settings, error) {
	if mode != ModeOn && mode != ModeOff && mode != ModeOwn {
		return Settings{}, fmt.Errorf("%w, not %q", ErrBadMode, mode)
	}
	if assistant == "" {
		return Settings{}, errors.New("name the assistant whose memory choice to set")
	}
	return s.change(func(x *Settings) error { x.Assistants[assistant] = mode; return nil })
}

// change reads, changes and writes the settings in one transaction.
func (s *Service) change(fn func(*Settings) error) (Settings, error) {
	var x Settings
	apply := func() error {
		if err := store.CheckSchema(store.Settings, settingsID, x.Schema, settingsSchema); err != nil {
			return err
		}
		if x.Assistants == nil {
			x.Assistants = map[string]string{}
		}
		x.Schema = settingsSchema
		return fn(&x)
	}
	err := s.st.Upsert(store.Settings, settingsID, &x, func() {
		x = Settings{Schema: settingsSchema, Assistants: map[string]string{}}
	}, apply)
	return x, err
}
