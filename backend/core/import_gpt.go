package core

import (
	"fmt"

	"rehome/backend/assistant"
)

// MaxImportJSON bounds the JSON one import reads (a store page is a few
// hundred KB; the export snippet's file of a few hundred GPTs some MB).
const MaxImportJSON = 64 << 20

// ImportJSON imports a JSON file of one assistant or a list of them:
// ChatGPT's own GPT records (one GPT, a bare gizmo, the owner's view, the
// store's or the owner's list, an array, JSON Lines, the export
// snippet's file), an OpenAI Assistants API object or list, or rehome's
// own record. Each is imported on its own and reported; a GPT imported
// before (the same g- id) is updated. Every face imports through here.
func (c *Core) ImportJSON(data []byte, knowledge []string) (assistant.ImportReport, error) {
	if err := c.Ready(); err != nil {
		return assistant.ImportReport{}, err
	}
	if len(data) > MaxImportJSON {
		return assistant.ImportReport{}, fmt.Errorf("%w: the file is %d MB, more than the %d MB rehome reads: split it", assistant.ErrInvalid, len(data)>>20, MaxImportJSON>>20)
	}
	return c.assistants.ImportJSON(data, assistant.ImportOptions{Knowledge: knowledge})
}

// PreviewJSON says what ImportJSON would do with the file, per
// assistant, storing nothing: the window shows it before the user
// imports.
func (c *Core) PreviewJSON(data []byte) (assistant.ImportReport, error) {
	if err := c.Ready(); err != nil {
		return assistant.ImportReport{}, err
	}
	if len(data) > MaxImportJSON {
		return assistant.ImportReport{}, fmt.Errorf("%w: the file is %d MB, more than the %d MB rehome reads: split it", assistant.ErrInvalid, len(data)>>20, MaxImportJSON>>20)
	}
	return c.assistants.PreviewJSON(data)
}
