package core

import (
	"errors"
	"fmt"
	"strings"

	"rehome/backend/assistant"
	"rehome/backend/store"
)

// ResolveAssistant finds the assistant ref names, the same way for every
// command that takes an ASSISTANT (knowledge, actions, ask): its id, else
// its name (any case, spaces around it ignored) when exactly one
// assistant has it.
func (c *Core) ResolveAssistant(ref string) (assistant.Assistant, error) {
	if err := c.Ready(); err != nil {
		return assistant.Assistant{}, err
	}
	a, err := c.assistants.Get(ref)
	if !errors.Is(err, store.ErrNotFound) {
		return a, err
	}
	all, lerr := c.assistants.List()
	if lerr != nil {
		return a, err
	}
	var found []assistant.Assistant
	for _, x := range all {
		if strings.EqualFold(strings.TrimSpace(x.Name), strings.TrimSpace(ref)) {
			found = append(found, x)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return a, &unknownAssistant{ref}
	}
	return a, fmt.Errorf("%d assistants are named %q: give the id (see `rehome assistants list`)", len(found), ref)
}

// unknownAssistant is a ref no assistant has as id or name; it is a
// store.ErrNotFound.
type unknownAssistant struct{ ref string }

func (e *unknownAssistant) Error() string {
	return fmt.Sprintf("no assistant has the id or name %q (see `rehome assistants list`)", e.ref)
}

func (e *unknownAssistant) Unwrap() error { return store.ErrNotFound }
