package assistant

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Imported is a parsed or stored import, with what the user should know:
// parts of the description that could not come along, and why.
type Imported struct {
	Assistant Assistant `json:"assistant"`
	Warnings  []string  `json:"warnings"`
	// Updated: the GPT was imported before (the same g- id) and that
	// assistant was updated rather than a second one made.
	Updated bool `json:"updated,omitempty"`
	// needsKnowledge: the description searches files that did not come
	// with it.
	needsKnowledge bool
}

// ImportOptions add to what the JSON describes.
type ImportOptions struct {
	// Knowledge lists files the user attaches: each is copied into the
	// service's knowledge library (see Library), where its reference
	// points.
	Knowledge []string `json:"knowledge"`
}

// capabilityAliases maps the names a GPT's capabilities go by (ChatGPT's
// GPT editor, the Assistants API, people) to rehome's ids.
var capabilityAliases = map[string]Capability{
	"web_browsing":                   WebBrowsing,
	"browsing":                       WebBrowsing,
	"web_search":                     WebBrowsing,
	"web_search_preview":             WebBrowsing,
	"web":                            WebBrowsing,
	"image_generation":               ImageGeneration,
	"dall_e":                         ImageGeneration,
	"dalle":                          ImageGeneration,
	"dall_e_image_generation":        ImageGeneration,
	"image_gen":                      ImageGeneration,
	"code_interpreter":               CodeInterpreter,
	"code_interpreter_data_analysis": CodeInterpreter,
	"data_analysis":                  CodeInterpreter,
	"python":                         CodeInterpreter,
	"canvas":                         Canvas,
	"memory":                         Memory,
	"voice":                          Voice,
	"vision":                         Vision,
}

// capabilityKey folds "Code Interpreter & Data Analysis" or "DALL·E" to
// the form capabilityAliases uses.
func capabilityKey(s string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			under = false
		} else if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

// ParseJSON reads a JSON description of a GPT: the fields of rehome's
// Assistant record, or an OpenAI Assistants API object (name, description,
// instructions, model, tools with code_interpreter, file_search and
// function), or a mix. Unknown fields are ignored; a known field of the
// wrong type is an error that names it ("instructions: expected a string,
// got number"), and so is broken JSON, with its line and column. Nothing is
// validated or stored; see Service.Import.
func ParseJSON(data []byte) (Imported, error) {
	var raw any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return Imported{}, jsonError(data, err)
	}
	if dec.More() {
		return Imported{}, fmt.Errorf("%w: the file holds more than one JSON value: import one assistant per file", ErrInvalid)
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return Imported{}, fmt.Errorf("%w: expected a JSON object describing one assistant, got %s", ErrInvalid, typeName(raw))
	}
	if rec, ok := asGPT(obj); ok {
		return parseGPT(rec)
	}
	if items, _, ok := gptList(obj); ok {
		return Imported{}, fmt.Errorf("%w: this is a list of %d GPTs: import it with `rehome assistants import FILE` or the Import panel, which take every GPT in it", ErrInvalid, len(items))
	}
	if err := notAnAssistant(obj); err != nil {
		return Imported{}, err
	}
	if obj["object"] == "list" {
		return Imported{}, fmt.Errorf("%w: this is a list of assistants (the Assistants API's list response): import it with `rehome assistants import FILE` or the Import panel, which take every assistant in it", ErrInvalid)
	}
	p := &parser{obj: obj}
	a := p.assistant()
	if p.err != nil {
		return Imported{}, p.err
	}
	if p.warnings == nil {
		p.warnings = []string{}
	}
	return Imported{Assistant: a, Warnings: p.warnings, needsKnowledge: p.needsKnowledge}, nil
}

// jsonError says where broken JSON broke.
func jsonError(data []byte, err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: the file is empty: expected a JSON object describing the assistant", ErrInvalid)
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, col := lineCol(data, int64(len(data)))
		return fmt.Errorf("%w: the JSON ends early at line %d, column %d: the file looks cut short", ErrInvalid, line, col)
	case errors.As(err, &syn):
		line, col := lineCol(data, syn.Offset)
		return fmt.Errorf("%w: broken JSON at line %d, column %d: %s", ErrInvalid, line, col, strings.TrimPrefix(syn.Error(), "json: "))
	}
	return fmt.Errorf("%w: %v", ErrInvalid, err)
}

func lineCol(data []byte, off int64) (line, col int) {
	off = min(off, int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
