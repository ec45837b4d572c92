package assistant

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// openWebUIID derives a model id the way Open WebUI's model editor does
// from a name (whitespace to "-", other characters outside [A-Za-z0-9-]
// dropped, lower case).
func openWebUIID(a Assistant) string {
	id := regexp.MustCompile(`\s+`).ReplaceAllString(a.Name, "-")
	id = strings.ToLower(regexp.MustCompile(`[^a-zA-Z0-9-]`).ReplaceAllString(id, ""))
	if strings.Trim(id, "-") == "" {
		id = "rehome-" + strings.ToLower(a.ID)
		if a.ID == "" {
			id = "rehome-assistant"
		}
	}
	return id
}

// OpenWebUIModel is one model as Open WebUI's Workspace → Models exports
// and imports it (a JSON array of these): the fields of its ModelForm.
type OpenWebUIModel struct {
	ID            string          `json:"id"`
	BaseModelID   string          `json:"base_model_id"`
	Name          string          `json:"name"`
	Meta          OpenWebUIMeta   `json:"meta"`
	Params        map[string]any  `json:"params"`
	AccessControl json.RawMessage `json:"access_control"`
	IsActive      bool            `json:"is_active"`
	CreatedAt     int64           `json:"created_at"`
	UpdatedAt     int64           `json:"updated_at"`
}

// OpenWebUIMeta is the model's meta: what the UI shows and switches on.
type OpenWebUIMeta struct {
	ProfileImageURL   string                `json:"profile_image_url"`
	Description       *string               `json:"description"`
	SuggestionPrompts []OpenWebUISuggestion `json:"suggestion_prompts"`
	Tags              []map[string]string   `json:"tags"`
	Capabilities      map[string]bool       `json:"capabilities"`
	// Rehome keeps what Open WebUI has no field for (the knowledge files
	// and actions); ModelMeta allows extra keys and keeps them.
	Rehome OpenWebUIRehome `json:"rehome"`
}

// OpenWebUISuggestion is a prompt suggestion: the text sent, and a title
// and subtitle shown on the button.
type OpenWebUISuggestion struct {
	Content string    `json:"content"`
	Title   [2]string `json:"title"`
}

// OpenWebUIRehome carries the rest of the assistant in the export.
type OpenWebUIRehome struct {
	AssistantID string          `json:"assistant_id,omitempty"`
	Knowledge   []KnowledgeFile `json:"knowledge"`
	Actions     []Action        `json:"actions"`
	Notes       string          `json:"notes,omitempty"`
}

// privateAccess is Open WebUI's access control for "only the owner".
const privateAccess = `{"read":{"group_ids":[],"user_ids":[]},"write":{"group_ids":[],"user_ids":[]}}`

// OpenWebUI writes a as an Open WebUI model export: a JSON array with one
// model whose base_model_id is the chosen local model, the instructions as
// its system prompt, the starters as prompt suggestions and the
// capabilities as its switches.
func OpenWebUI(a Assistant, opts ExportOptions) ([]byte, []string, error) {
	if err := checkModel(opts.Model); err != nil {
		return nil, nil, err
	}
	warnings := []string{}
	has := func(c Capability) bool { return slices.Contains(a.Capabilities, c) }
	profile := "/static/favicon.png"
	if a.Picture != "" {
		profile = a.Picture // Open WebUI keeps its own model pictures as data: URLs too
	}
	m := OpenWebUIModel{
		ID: openWebUIID(a), BaseModelID: opts.Model, Name: a.Name,
		Params:        map[string]any{},
		AccessControl: json.RawMessage(privateAccess), IsActive: true,
		CreatedAt: a.Created.Unix(), UpdatedAt: a.Updated.Unix(),
		Meta: OpenWebUIMeta{
			ProfileImageURL:   profile,
			SuggestionPrompts: []OpenWebUISuggestion{},
			Tags:              []map[string]string{{"name": "rehome"}},
			Capabilities: map[string]bool{
				"vision": has(Vision), "file_upload": true, "web_search": has(WebBrowsing),
				"image_generation": has(ImageGeneration), "code_interpreter": has(CodeInterpreter),
				"citations": len(a.Knowledge) > 0 || has(Knowledge),
			},
			Rehome: OpenWebUIRehome{AssistantID: a.ID, Knowledge: namesOnly(a.Knowledge), Actions: a.Actions, Notes: a.Notes},
		},
	}
	if a.Created.IsZero() {
		m.CreatedAt, m.UpdatedAt = 0, 0
	}
	if a.Description != "" {
		d := a.Description
		m.Meta.Description = &d
	}
	if m.Meta.Rehome.Knowledge == nil {
		m.Meta.Rehome.Knowledge = []KnowledgeFile{}
	}
	if m.Meta.Rehome.Actions == nil {
		m.Meta.Rehome.Actions = []Action{}
	}
	if a.Instructions != "" {
		m.Params["system"] = a.Instructions
	}
	for _, p := range opts.Parameters {
		if !slices.Contains(ollamaParameters, p.Name) {
			return nil, nil, fmt.Errorf("parameter %q: Ollama does not know it (known: %s)", p.Name, strings.Join(ollamaParameters, ", "))
		}
		if f, err := strconv.ParseFloat(p.Value, 64); err == nil {
			m.Params[p.Name] = f
		} else {
			m.Params[p.Name] = p.Value
		}
	}
	if _, ok := m.Params["num_ctx"]; !ok {
		n, _ := contextFor(a)
		m.Params["num_ctx"] = n
	}
	for _, s := range a.Starters {
		title := s
		if utf8.RuneCountInString(title) > 40 {
			title = string([]rune(title)[:39]) + "…"
		}
		m.Meta.SuggestionPrompts = append(m.Meta.SuggestionPrompts, OpenWebUISuggestion{Content: s, Title: [2]string{title, ""}})
	}
	if len(a.Knowledge) > 0 {
		warnings = append(warnings, "knowledge: Open WebUI keeps knowledge in its own collections; upload the listed files to a Knowledge base there and attach it to the model (the references are kept under meta.rehome)")
	}
	if len(a.Actions) > 0 {
		warnings = append(warnings, "actions: add each action's OpenAPI schema in Open WebUI as a tool server (the schemas are kept under meta.rehome)")
	}
	out, err := json.MarshalIndent([]OpenWebUIModel{m}, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	return append(out, '\n'), warnings, nil
}

// namesOnly is ks without their paths: an export names files, never where
// they are on the exporting machine.
func namesOnly(ks []KnowledgeFile) []KnowledgeFile {
	out := slices.Clone(ks)
	for i := range out {
		out[i].Path = ""
	}
	return out
}
