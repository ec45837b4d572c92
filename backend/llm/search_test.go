package llm

import (
	"path/filepath"
	"testing"

	"rehome/backend/store"
)

// Search finds a conversation by words of its answers and questions, not
// only its title, and every word must be there.
func TestSearchConversations(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := NewConversation()
	a.Add(&Transcript{Question: "Which region sold most?", Answer: "South sold the most; East the least."})
	b := NewConversation()
	b.Add(&Transcript{Question: "Plot revenue by month", Answer: "Here is the plot."})
	for _, c := range []*Conversation{a, b} {
		if err := SaveConversation(st, c); err != nil {
			t.Fatal(err)
		}
	}
	for q, want := range map[string]int{"least": 1, "LEAST south": 1, "least plot": 0, "plot": 1, "": 2, "nothing-like-this": 0} {
		got, err := SearchConversations(st, q, 0)
		if err != nil || len(got) != want {
			t.Errorf("%q: %d found (%v), want %d", q, len(got), err, want)
		}
	}
	got, _ := SearchConversations(st, "least", 0)
	if len(got) == 1 && got[0].ID != a.ID {
		t.Errorf("found %s, want %s", got[0].ID, a.ID)
	}
}
