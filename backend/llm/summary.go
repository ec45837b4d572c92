package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"rehome/backend/store"
)

// ConversationSummary is what a list of conversations shows of each: a
// few fields, bounded in size whatever the conversation holds.
type ConversationSummary struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	AssistantID   string `json:"assistant_id,omitempty"`
	AssistantName string `json:"assistant_name,omitempty"`
	Server        string `json:"server"`
	Model         string `json:"model"`
	// GizmoID and Source: see Conversation.
	GizmoID string `json:"gizmo_id,omitempty"`
	Source  string `json:"source,omitempty"`
	// Questions is how many questions it holds; -1 when unknown (a large
	// record written by an older rehome).
	Questions int       `json:"questions"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	// Size is the bytes the conversation takes in the database.
	Size int64 `json:"size"`
}

// summaryHead and summaryWhole bound what a list reads of one record:
// the head holding the summary's fields, or the whole of a small record
// written before those fields came first.
const (
	summaryHead  = 64 << 10
	summaryWhole = 1 << 20
	summaryField = 512 // each of its words
)

// ListConversations returns the summaries of up to limit conversations
// (all when limit <= 0), newest first. Each is read from the head of its
// record, so the time a list takes does not grow with what the
// conversations hold.
func ListConversations(st *store.Store, limit int) ([]ConversationSummary, error) {
	out := []ConversationSummary{}
	err := st.Each(store.Conversations, func(id string, raw []byte) (bool, error) {
		return collectSummary(&out, id, raw, limit)
	})
	return out, err
}

// collectSummary appends the summary of record id to out and says whether
// a list of at most limit (all when limit <= 0) wants more.
func collectSummary(out *[]ConversationSummary, id string, raw []byte, limit int) (bool, error) {
	s, err := summarize(raw)
	if err != nil {
		return false, fmt.Errorf("read conversation %s: %w", id, err)
	}
	if s.ID == "" {
		s.ID = id
	}
	*out = append(*out, s)
	return limit <= 0 || len(*out) < limit, nil
}

// summarize reads the summary's fields from the head of a record, up to
// its files; a record written by an older rehome (dates after the
// exchanges) is read whole when it is small, else its count and dates
// stay unknown.
func summarize(raw []byte) (ConversationSummary, error) {
	s := ConversationSummary{Size: int64(len(raw)), Questions: -1}
	dec := json.NewDecoder(bytes.NewReader(raw[:min(len(raw), summaryHead)]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return s, fmt.Errorf("not a conversation record")
	}
	fields := map[string]any{"id": &s.ID, "title": &s.Title, "assistant_id": &s.AssistantID, "assistant_name": &s.AssistantName,
		"server": &s.Server, "model": &s.Model, "questions": &s.Questions, "created": &s.Created, "updated": &s.Updated,
		"gizmo_id": &s.GizmoID, "source": &s.Source}
	// A field cut by the head's end (a huge model name) ends the reading:
	// the summary has what came before it.
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := tok.(string)
		if key == "files" || key == "exchanges" {
			break
		}
		var dst any = new(json.RawMessage)
		if f, ok := fields[key]; ok {
			dst = f
		}
		if err := dec.Decode(dst); err != nil {
			break
		}
	}
	for _, f := range []*string{&s.ID, &s.Title, &s.AssistantID, &s.AssistantName, &s.Server, &s.Model, &s.GizmoID, &s.Source} {
		*f = cutKept(*f, summaryField)
	}
	if s.Questions < 0 && len(raw) <= summaryWhole {
		var old struct {
			Exchanges []struct{} `json:"exchanges"`
			Created   time.Time  `json:"created"`
			Updated   time.Time  `json:"updated"`
		}
		if err := json.Unmarshal(raw, &old); err != nil {
			return s, err
		}
		s.Questions, s.Created, s.Updated = len(old.Exchanges), old.Created, old.Updated
	}
	return s, nil
}
