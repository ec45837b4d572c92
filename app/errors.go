package app

import (
	"errors"
	"fmt"

	"rehome/backend/assistant"
	"rehome/backend/audit"
	"rehome/backend/core"
	"rehome/backend/llm"
	"rehome/backend/models"
)

// uiError says a domain error in the UI's words: the backend names the
// missing fact, the UI adds the field or screen that gives it (the CLI
// names its flags instead; see cli_errors.go).
func uiError(err error) error {
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
		return fmt.Errorf("%w: tick “Plan a purchase” and enter the VRAM and RAM in GiB", err)
	case errors.As(err, &mm):
		return fmt.Errorf("%w: tick “Plan a purchase” and enter the RAM in GiB", err)
	case errors.As(err, &nv):
		return fmt.Errorf("%w: enter it in the VRAM field, in GiB (0 for no GPU)", err)
	case errors.As(err, &mk):
		return fmt.Errorf("%w on the Assistants screen, then export again", err)
	case errors.As(err, &um):
		return fmt.Errorf("%w: type its Ollama name, or a GGUF file's path, in “Local model”", err)
	case errors.Is(err, assistant.ErrNoModel):
		return fmt.Errorf("%w: type it in “Local model” (the Hardware screen says which ones fit)", err)
	case errors.As(err, &ns):
		return fmt.Errorf("%w Or type a server's URL in the Ask screen's server field", err)
	case errors.As(err, &na):
		return fmt.Errorf("%w: audit it on the Audit screen first", err)
	}
	return err
}
