package main

import (
	"errors"
	"fmt"

	"rehome/backend/assistant"
	"rehome/backend/audit"
	"rehome/backend/core"
	"rehome/backend/llm"
	"rehome/backend/models"
)

// cliError says a domain error in the terminal's words: the backend names
// the missing fact, the CLI adds the flag that gives it (the UI names its
// fields instead; see app/errors.go).
func cliError(err error) error {
	var (
		mm *models.MissingMemoryError
		nv *audit.NeedVRAMError
		mk *assistant.MissingKnowledgeError
		um *core.UnnamedModelError
		ns *llm.NoServerError
		na *audit.NotAuditedError
	)
	switch {
	case errors.As(err, &mm) && mm.VRAM:
		return fmt.Errorf("%w: give --vram and --ram, such as --vram 24GiB --ram 64GiB", err)
	case errors.As(err, &mm):
		return fmt.Errorf("%w: give it with --ram, such as --ram 64GiB", err)
	case errors.As(err, &nv):
		return fmt.Errorf("%w (give it with --vram, such as --vram 8GiB, or 0 for no GPU)", err)
	case errors.As(err, &mk):
		return fmt.Errorf("%w, or export with --allow-missing to leave it out", err)
	case errors.As(err, &um):
		return fmt.Errorf("%w: give the Ollama name or a GGUF file's path with --model", err)
	case errors.Is(err, assistant.ErrNoModel):
		return fmt.Errorf("%w: give it with --model (`rehome fit` says which ones fit)", err)
	case errors.As(err, &ns):
		return fmt.Errorf("%w Or name one with --server URL", err)
	case errors.As(err, &na):
		return fmt.Errorf("%w: run `rehome audit --assistant %s` first", err, na.AssistantID)
	}
	return err
}
