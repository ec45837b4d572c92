package assistant

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
)

// MaxListItems bounds the records one imported file may list.
const MaxListItems = 10000

// gptItems returns the records of a file that lists several: JSON Lines
// (one record a line, as scrapers of the GPT store write them), a JSON
// array, or a list of GPTs (the store's, the owner's, the sidebar's). ok
// is false for one object that is not a list of GPTs, and for broken JSON
// (the single-object path says where it broke).
func gptItems(data []byte) (items []json.RawMessage, notes []string, ok bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var vals []json.RawMessage
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			if len(vals) > 1 {
				return nil, nil, true, fmt.Errorf("%w: record %d of the file: %v: each line of a JSON Lines file must be one JSON object", ErrInvalid, len(vals)+1, err)
			}
			return nil, nil, false, nil
		}
		if len(vals) == MaxListItems {
			return nil, nil, true, fmt.Errorf("%w: the file holds more than %d records: split it", ErrInvalid, MaxListItems)
		}
		vals = append(vals, v)
	}
	switch {
	case len(vals) == 0:
		return nil, nil, false, nil
	case len(vals) > 1:
		return vals, []string{fmt.Sprintf("JSON Lines: %d records, each imported on its own", len(vals))}, true, nil
	}
	v := bytes.TrimSpace(vals[0])
	if len(v) > 0 && v[0] == '[' {
		if err := json.Unmarshal(v, &items); err != nil {
			return nil, nil, true, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		if len(items) == 0 {
			return nil, nil, true, fmt.Errorf("%w: the list is empty: there is nothing to import", ErrInvalid)
		}
		if len(items) > MaxListItems {
			return nil, nil, true, fmt.Errorf("%w: the list holds %d records, more than %d: split it", ErrInvalid, len(items), MaxListItems)
		}
		return items, nil, true, nil
	}
	var obj map[string]any
	if json.Unmarshal(v, &obj) != nil {
		return nil, nil, false, nil
	}
	list, cursor, isList := gptList(obj)
	if !isList {
		return nil, nil, false, nil
	}
	if len(list) == 0 {
		return nil, nil, true, fmt.Errorf("%w: the list of GPTs is empty: there is nothing to import", ErrInvalid)
	}
	for _, e := range list {
		b, _ := json.Marshal(e)
		items = append(items, b)
	}
	if cursor != "" {
		notes = append(notes, "the list says more GPTs follow (its cursor is set): this file is one page; the export snippet (docs/chatgpt-export.md) fetches every page")
	}
	return items, notes, true, nil
}

// headOf names a listed record before it is imported: a GPT by its g- id
// and display name, others by id and name.
func headOf(raw json.RawMessage) (id, name string) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", ""
	}
	if rec, ok := asGPT(v); ok {
		id, _ = rec.gizmo["id"].(string)
		d, _ := rec.gizmo["display"].(map[string]any)
		name, _ = d["name"].(string)
		return id, name
	}
	m, _ := v.(map[string]any)
	id, _ = m["id"].(string)
	name, _ = m["name"].(string)
	return id, name
}

// rehomeKeys are the fields that make an object an assistant rehome
// reads (its own record, an Assistants API object).
var rehomeKeys = []string{"name", "instructions", "description", "starters", "conversation_starters", "capabilities",
	"knowledge", "actions", "notes", "schema", "object", "tools", "model", "tool_resources", "gizmo_id", "welcome_message"}

// notAnAssistant says, of an object rehome cannot read as an assistant,
// what it is not and what rehome reads.
func notAnAssistant(obj map[string]any) error {
	for _, k := range rehomeKeys {
		if _, ok := obj[k]; ok {
			return nil
		}
	}
	if _, ok := obj["mapping"]; ok {
		return fmt.Errorf("%w: this is a conversation from ChatGPT's data export, not a GPT: import conversations with `rehome conversations import`", ErrInvalid)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > 8 {
		keys = append(keys[:8], "…")
	}
	return fmt.Errorf("%w: this JSON is not a GPT (its keys: %v): rehome reads ChatGPT's GPT records ({\"gizmo\": …, \"tools\": …, \"files\": …}, a gizmo with display.name, the store's or your own list of GPTs, as the export snippet saves them), an OpenAI Assistants API object, or rehome's own assistant record (name, instructions …)", ErrInvalid, keys)
}
