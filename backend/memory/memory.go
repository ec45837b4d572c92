package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"rehome/backend/store"
)

// Schema is the version of the Memory record this build writes.
const Schema = 1

// Bounds on what is kept. ChatGPT's memories are a sentence or two each;
// a memory of megabytes would crowd every question's context out.
const (
	// MaxChars is the most characters one memory holds.
	MaxChars = 2000
	// MaxMemories is the most memories a data folder keeps.
	MaxMemories = 10000
	// MaxImportBytes is the most text one import reads.
	MaxImportBytes = 4 << 20
)

// Where a memory came from.
const (
	SourceModel  = "model"  // the memory tool, in a chat
	SourceUser   = "user"   // typed in Settings → Memory or `rehome memory add`
	SourceImport = "import" // ChatGPT's list, pasted or read from a file
)

// Memory is one thing to remember.
type Memory struct {
	Schema int    `json:"schema"`
	ID     string `json:"id"`
	Text   string `json:"text"`
	// Assistant is the assistant that owns it; "" for the memories every
	// chat shares.
	Assistant string `json:"assistant,omitempty"`
	// Source is model, user or import.
	Source string `json:"source"`
	// Conversation is the chat whose model saved it (SourceModel).
	Conversation string    `json:"conversation,omitempty"`
	Created      time.Time `json:"created"`
	Updated      time.Time `json:"updated"`
	// Forgotten is when the model forgot it: kept for the chat's Undo,
	// hidden everywhere else, purged after a week.
	Forgotten *time.Time `json:"forgotten,omitempty"`
}

// forgetKept is how long a memory the model forgot stays restorable.
const forgetKept = 7 * 24 * time.Hour

// Service keeps memories in a store.
type Service struct{ st *store.Store }

// NewService returns the memories of st.
func NewService(st *store.Store) *Service { return &Service{st: st} }

// Filter picks memories for List.
type Filter struct {
	// Query keeps the memories holding every word of it (case-insensitive).
	Query string
	// Scope keeps one scope: "" all, "shared" the shared ones, or an
	// assistant's id its own.
	Scope string
	// Limit is the most returned (0: all).
	Limit int
}

// ScopeShared is Filter.Scope for the memories every chat shares.
const ScopeShared = "shared"

// List returns the kept memories Filter picks, newest first.
func (s *Service) List(f Filter) ([]Memory, error) {
	words := strings.Fields(strings.ToLower(f.Query))
	var out []Memory
	err := s.st.Each(store.Memories, func(id string, raw []byte) (bool, error) {
		var m Memory
		if err := json.Unmarshal(raw, &m); err != nil {
			return true, nil // a damaged record is skipped, never fatal to the list
		}
		if m.Forgotten != nil || !inScope(m, f.Scope) || !hasWords(m.Text, words) {
			return true, nil
		}
		out = append(out, m)
		return f.Limit <= 0 || len(out) < f.Limit, nil
	})
	if out == nil {
		out = []Memory{}
	}
	return out, err
}

func inScope(m Memory, scope string) bool {
	switch scope {
	case "":
		return true
	case ScopeShared:
		return m.Assistant == ""
	}
	return m.Assistant == scope
}

func hasWords(text string, words []string) bool {
	low := strings.ToLower(text)
	for _, w := range words {
		if !strings.Contains(low, w) {
			return false
		}
	}
	return true
}

// Get returns one memory (a forgotten one too).
func (s *Service) Get(id string) (Memory, error) {
	var m Memory
	if err := s.st.Get(store.Memories, id, &m); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return m, fmt.Errorf("memory %s: %w (`rehome memory list` shows the ids)", id, ErrNotFound)
		}
		return m, err
	}
	return m, store.CheckSchema(store.Memories, id, m.Schema, Schema)
}

// Clean is text as a memory keeps it: white space runs made one space (a
// memory is one line), trimmed, and checked against MaxChars.
func Clean(text string) (string, error) {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	t := strings.Join(strings.Fields(text), " ")
	if t == "" {
		return "", ErrEmpty
	}
	if n := utf8.RuneCountInString(t); n > MaxChars {
		return "", fmt.Errorf("%w: %d characters, at most %d are kept: save the gist of it", ErrTooLong, n, MaxChars)
	}
	return t, nil
}

// Add keeps a new memory, unless the same text (in the same scope) is kept
// already: then that one is returned with added false.
func (s *Service) Add(m Memory) (kept Memory, added bool, err error) {
	text, err := Clean(m.Text)
	if err != nil {
		return Memory{}, false, err
	}
	same, err := s.find(func(x Memory) bool { return x.Assistant == m.Assistant && strings.EqualFold(x.Text, text) })
	if err != nil {
		return Memory{}, false, err
	}
	if len(same) > 0 {
		return same[0], false, nil
	}
	n, err := s.st.Count(store.Memories)
	if err != nil {
		return Memory{}, false, err
	}
	if n >= MaxMemories {
		return Memory{}, false, fmt.Errorf("%w: %d memories are kept, the most rehome keeps: delete some in Settings → Memory (or `rehome memory rm ID`)", ErrFull, n)
	}
	now := time.Now().UTC()
	m.Schema, m.ID, m.Text, m.Created, m.Updated, m.Forgotten = Schema, store.NewID(), text, now, now, nil
	if m.Source == "" {
		m.Source = SourceUser
	}
	return m, true, s.st.Put(store.Memories, m.ID, m)
}

// AddAll keeps each new text of texts (one scope, one source) in one
// transaction, leaving out those kept already; it returns how many were
// added and how many were kept before.
func (s *Service) AddAll(texts []string, assistant, source string) (added, already int, err error) {
	kept := map[string]bool{}
	all, err := s.find(func(m Memory) bool { return m.Assistant == assistant })
	if err != nil {
		return 0, 0, err
	}
	for _, m := range all {
		kept[strings.ToLower(m.Text)] = true
	}
	n, err := s.st.Count(store.Memories)
	if err != nil {
		return 0, 0, err
	}
	recs := map[string]any{}
	now := time.Now().UTC()
	for _, t := range texts {
		text, err := Clean(t)
		if err != nil {
			return 0, 0, err
		}
		if kept[strings.ToLower(text)] {
			already++
			continue
		}
		kept[strings.ToLower(text)] = true
		if n+len(recs) >= MaxMemories {
			return 0, 0, fmt.Errorf("%w: %d memories are kept and %d more would pass the %d rehome keeps: delete some in Settings → Memory (or `rehome memory rm ID`), nothing was imported", ErrFull, n, len(texts)-already, MaxMemories)
		}
		m := Memory{Schema: Schema, ID: store.NewID(), Text: text, Assistant: assistant, Source: source, Created: now, Updated: now}
		recs[m.ID] = m
	}
	if len(recs) > 0 {
		if err := s.st.PutJSON(store.Memories, recs); err != nil {
			return 0, 0, err
		}
	}
	return len(recs), already, nil
}

// Edit replaces a memory's text.
func (s *Service) Edit(id, text string) (Memory, error) {
	t, err := Clean(text)
	if err != nil {
		return Memory{}, err
	}
	var m Memory
	err = s.modify(id, &m, func() error {
		m.Text, m.Updated = t, time.Now().UTC()
		return nil
	})
	return m, err
}

// Delete removes a memory for good.
func (s *Service) Delete(id string) error {
	if err := s.st.Delete(store.Memories, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("memory %s: %w (`rehome memory list` shows the ids)", id, ErrNotFound)
		}
		return err
	}
	return nil
}

// Forget hides a memory, restorable with Restore for a week (the chat's
// Undo); memories forgotten longer ago are purged now.
func (s *Service) Forget(id string) (Memory, error) {
	s.purge()
	var m Memory
	err := s.modify(id, &m, func() error {
		now := time.Now().UTC()
		m.Forgotten = &now
		return nil
	})
	return m, err
}

// Restore brings back a memory the model forgot.
func (s *Service) Restore(id string) (Memory, error) {
	var m Memory
	err := s.modify(id, &m, func() error {
		m.Forgotten = nil
		return nil
	})
	return m, err
}

func (s *Service) modify(id string, m *Memory, fn func() error) error {
	err := s.st.Modify(store.Memories, id, m, func() error {
		if err := store.CheckSchema(store.Memories, id, m.Schema, Schema); err != nil {
			return err
		}
		return fn()
	})
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("memory %s: %w (`rehome memory list` shows the ids)", id, ErrNotFound)
	}
	return err
}

// find returns the kept (not forgotten) memories match keeps.
func (s *Service) find(match func(Memory) bool) ([]Memory, error) {
	var out []Memory
	err := s.st.Each(store.Memories, func(id string, raw []byte) (bool, error) {
		var m Memory
		if json.Unmarshal(raw, &m) == nil && m.Forgotten == nil && match(m) {
			out = append(out, m)
		}
		return true, nil
	})
	return out, err
}

// purge deletes the memories forgotten more than a week ago.
func (s *Service) purge() {
	var old []string
	_ = s.st.Each(store.Memories, func(id string, raw []byte) (bool, error) {
		var m Memory
		if json.Unmarshal(raw, &m) == nil && m.Forgotten != nil && time.Since(*m.Forgotten) > forgetKept {
			old = append(old, id)
		}
		return true, nil
	})
	for _, id := range old {
		_ = s.st.Delete(store.Memories, id)
	}
}

// Match finds the memories of a scope a forget names: the one with that
// id, else those whose text is the same (case-insensitive), else those
// holding it; oldest first.
func (s *Service) Match(assistant, idOrText string) ([]Memory, error) {
	key := strings.TrimSpace(idOrText)
	if key == "" {
		return nil, ErrEmpty
	}
	if m, err := s.Get(key); err == nil && m.Forgotten == nil && m.Assistant == assistant {
		return []Memory{m}, nil
	}
	text := strings.Join(strings.Fields(strings.ToLower(key)), " ")
	all, err := s.find(func(m Memory) bool { return m.Assistant == assistant })
	if err != nil {
		return nil, err
	}
	var same, holding []Memory
	for _, m := range all {
		low := strings.ToLower(m.Text)
		switch {
		case low == text:
			same = append(same, m)
		case strings.Contains(low, text):
			holding = append(holding, m)
		}
	}
	out := same
	if len(out) == 0 {
		out = holding
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
