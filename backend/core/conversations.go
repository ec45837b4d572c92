package core

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rehome/backend/llm"
	"rehome/backend/store"
)

// ConversationsDir is the folder, in the data folder, that holds the files
// of kept conversations (an imported conversation's images and plots), one
// folder per conversation id.
const ConversationsDir = "conversations"

// Conversations is the kept conversations: list, search, show, rename,
// export, delete, and the import of ChatGPT's data export
// (conversations_import.go). Every face names a conversation the same
// way (Resolve).
type Conversations struct{ c *Core }

// Conversations is the conversation service.
func (c *Core) Conversations() *Conversations { return &Conversations{c: c} }

func (s *Conversations) store() (*store.Store, error) {
	if err := s.c.Ready(); err != nil {
		return nil, err
	}
	return s.c.st, nil
}

// List returns up to limit conversations' summaries (all when limit <=
// 0), newest first, each filed under its assistant: an imported GPT's
// conversation under the assistant whose gizmo id it carries.
func (s *Conversations) List(limit int) ([]llm.ConversationSummary, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	cs, err := llm.ListConversations(st, limit)
	if err != nil {
		return nil, err
	}
	s.fileAll(cs)
	return cs, nil
}

// Search returns the summaries of the conversations whose title,
// assistant, model, questions or answers hold every word of query.
func (s *Conversations) Search(query string, limit int) ([]llm.ConversationSummary, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	cs, err := llm.SearchConversations(st, query, limit)
	if err != nil {
		return nil, err
	}
	s.fileAll(cs)
	return cs, nil
}

func (s *Conversations) fileAll(cs []llm.ConversationSummary) {
	gz := s.gizmos()
	for i := range cs {
		if a, ok := gz[cs[i].GizmoID]; ok && cs[i].GizmoID != "" {
			cs[i].AssistantID, cs[i].AssistantName = a.ID, a.Name
		}
	}
}

// Resolve turns what a user typed into a conversation id: the id itself,
// "last" (the newest), the start of one id (at least 4 characters, one
// match), or an imported conversation's ChatGPT id.
func (s *Conversations) Resolve(ref string) (string, error) {
	st, err := s.store()
	if err != nil {
		return "", err
	}
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", fmt.Errorf("give a conversation id: %w", store.ErrNotFound)
	}
	if st.GetRaw(store.Conversations, ref, func([]byte) error { return nil }) == nil {
		return ref, nil
	}
	var found []string
	err = st.Each(store.Conversations, func(id string, raw []byte) (bool, error) {
		if strings.EqualFold(ref, "last") || strings.EqualFold(ref, "latest") {
			found = append(found, id)
			return false, nil
		}
		if len(ref) >= 4 && strings.HasPrefix(id, strings.ToLower(ref)) {
			found = append(found, id)
			return true, nil
		}
		if len(ref) >= 8 && sourceIDIs(raw, ref) {
			found = append(found, id)
			return false, nil
		}
		return true, nil
	})
	switch {
	case err != nil:
		return "", err
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return "", fmt.Errorf("%q starts %d conversations' ids: give more of it", ref, len(found))
	}
	return "", fmt.Errorf("conversation %q: %w: list the conversations to find its id", ref, store.ErrNotFound)
}

// sourceIDIs says whether an imported record's ChatGPT id is ref, reading
// only its head (the field comes before the exchanges).
func sourceIDIs(raw []byte, ref string) bool {
	i := strings.Index(string(raw[:min(len(raw), 4096)]), `"source_id":"`)
	if i < 0 {
		return false
	}
	rest := string(raw[i+len(`"source_id":"`) : min(len(raw), i+len(`"source_id":"`)+len(ref)+1)])
	return rest == ref+`"`
}

// Get returns one conversation, filed under its assistant.
func (s *Conversations) Get(ref string) (*llm.Conversation, error) {
	id, err := s.Resolve(ref)
	if err != nil {
		return nil, err
	}
	st, _ := s.store()
	c, err := llm.GetConversation(st, id)
	if err != nil {
		return nil, err
	}
	if c.GizmoID != "" {
		if a, ok := s.gizmos()[c.GizmoID]; ok {
			c.AssistantID, c.AssistantName = a.ID, a.Name
		}
	}
	return c, nil
}

// Rename gives a conversation the user's title (blank: its first
// question).
func (s *Conversations) Rename(ref, title string) (*llm.Conversation, error) {
	id, err := s.Resolve(ref)
	if err != nil {
		return nil, err
	}
	st, _ := s.store()
	return llm.RenameConversation(st, id, title)
}

// Export returns a conversation as Markdown ("md", the default) or a
// Jupyter notebook ("ipynb"), and the file extension it takes.
func (s *Conversations) Export(ref, format string) ([]byte, string, error) {
	c, err := s.Get(ref)
	if err != nil {
		return nil, "", err
	}
	switch strings.ToLower(strings.TrimSpace(format)) {
	case "", "md", "markdown":
		return []byte(c.Markdown()), "md", nil
	case "ipynb", "notebook":
		data, err := c.Notebook()
		return data, "ipynb", err
	}
	return nil, "", fmt.Errorf("export as md (Markdown) or ipynb (a Jupyter notebook), not %q", format)
}

// Delete removes a conversation and the files kept with it.
func (s *Conversations) Delete(ref string) error {
	id, err := s.Resolve(ref)
	if err != nil {
		return err
	}
	st, _ := s.store()
	if err := st.Delete(store.Conversations, id); err != nil {
		return err
	}
	if err := os.RemoveAll(s.filesDir(id)); err != nil {
		return fmt.Errorf("the conversation is deleted, its files are not: %w", err)
	}
	return nil
}

// filesDir is where a conversation's files are kept.
func (s *Conversations) filesDir(id string) string {
	return filepath.Join(s.c.dir, ConversationsDir, filepath.Base(id))
}

// gizmoAssistant is what filing needs of an assistant.
type gizmoAssistant struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	GizmoID string `json:"gizmo_id"`
}

// gizmos maps the gizmo ids of the imported GPTs to their assistants
// (the lookup is made at each list, so that an assistant imported after
// its conversations adopts them, and one deleted lets them go).
func (s *Conversations) gizmos() map[string]gizmoAssistant {
	out := map[string]gizmoAssistant{}
	st, err := s.store()
	if err != nil {
		return out
	}
	_ = st.Each(store.Assistants, func(_ string, raw []byte) (bool, error) {
		var a gizmoAssistant
		if json.Unmarshal(raw, &a) == nil && a.GizmoID != "" {
			if _, dup := out[a.GizmoID]; !dup { // newest first: the newest wins
				out[a.GizmoID] = a
			}
		}
		return true, nil
	})
	return out
}

// assistantOf is the assistant imported with that gizmo id, if any.
func (s *Conversations) assistantOf(gizmoID string) (string, string) {
	a := s.gizmos()[gizmoID]
	return a.ID, a.Name
}

// movedConversations counts, by assistant id, the conversations imported
// from ChatGPT that are filed under each (by the assistant they were
// imported under, or its GPT's gizmo id): the audit's "conversations
// moved", read in one pass over the conversations.
func (c *Core) movedConversations() map[string]int {
	cs, err := c.Conversations().List(0)
	if err != nil {
		return nil
	}
	n := map[string]int{}
	for _, s := range cs {
		if s.Source != "" && s.AssistantID != "" {
			n[s.AssistantID]++
		}
	}
	return n
}
