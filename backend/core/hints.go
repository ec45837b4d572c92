package core

import (
	"errors"
	"fmt"

	"rehome/backend/assistant"
	"rehome/backend/audit"
	"rehome/backend/llm"
	"rehome/backend/models"
)

// Hints are one face's words for giving what a domain error says is
// missing: the CLI names its flags, the window its fields and screens.
// The backend's error names the missing fact; Explain adds the face's
// hint after it, so each face says only its own words. Each hint carries
// its own leading punctuation (": give it with --ram").
type Hints struct {
	// VRAMAndRAM follows a models.MissingMemoryError for both memories,
	// RAM one for the RAM alone.
	VRAMAndRAM, RAM string
	// VRAM follows an audit.NeedVRAMError.
	VRAM string
	// Knowledge follows an assistant.MissingKnowledgeError.
	Knowledge string
	// ModelName follows an UnnamedModelError, Model an
	// assistant.ErrNoModel.
	ModelName, Model string
	// Server follows an llm.NoServerError.
	Server string
	// Audit follows an audit.NotAuditedError; "%s" in it is the
	// assistant's id.
	Audit string
}

// Explain returns err with the hint for its kind added; an error of no
// kind the hints know, or nil, comes back unchanged.
func (h Hints) Explain(err error) error {
	var (
		mm *models.MissingMemoryError
		nv *audit.NeedVRAMError
		mk *assistant.MissingKnowledgeError
		um *UnnamedModelError
		ns *llm.NoServerError
		na *audit.NotAuditedError
	)
	hint := ""
	switch {
	case err == nil:
		return nil
	case errors.As(err, &mm) && mm.VRAM:
		hint = h.VRAMAndRAM
	case errors.As(err, &mm):
		hint = h.RAM
	case errors.As(err, &nv):
		hint = h.VRAM
	case errors.As(err, &mk):
		hint = h.Knowledge
	case errors.As(err, &um):
		hint = h.ModelName
	case errors.Is(err, assistant.ErrNoModel):
		hint = h.Model
	case errors.As(err, &ns):
		hint = h.Server
	case errors.As(err, &na):
		hint = fmt.Sprintf(h.Audit, na.AssistantID)
	}
	if hint == "" {
		return err
	}
	return fmt.Errorf("%w%s", err, hint)
}
