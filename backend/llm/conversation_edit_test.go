package llm

import (
	"errors"
	"path/filepath"
	"testing"

	"rehome/backend/store"
)

// TestRenameConversation: a title the user types is kept in the database;
// a blank one goes back to the first question; a missing one says so.
func TestRenameConversation(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "rehome.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := NewConversation()
	c.Add(&Transcript{Question: "Which region sold most?"})
	if err := SaveConversation(st, c); err != nil {
		t.Fatal(err)
	}
	if _, err := RenameConversation(st, c.ID, "  Sales by region  "); err != nil {
		t.Fatal(err)
	}
	got, err := GetConversation(st, c.ID)
	if err != nil || got.Title != "Sales by region" || len(got.Exchanges) != 1 {
		t.Fatalf("%+v %v", got, err)
	}
	if r, _ := RenameConversation(st, c.ID, " "); r.Title != "Which region sold most?" {
		t.Fatalf("blank title: %q", r.Title)
	}
	if _, err := RenameConversation(st, "nope", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

// TestRewind: regenerate and edit take back the last questions, and no
// more than there are.
func TestRewind(t *testing.T) {
	c := NewConversation()
	for _, q := range []string{"a", "b", "c"} {
		c.Add(&Transcript{Question: q, Answer: "answer to " + q})
	}
	if err := c.Rewind(1); err != nil || len(c.Exchanges) != 2 || c.History()[len(c.History())-2].Content != "b" {
		t.Fatalf("%v %+v", err, c.History())
	}
	if err := c.Rewind(3); !errors.Is(err, ErrRewind) || len(c.Exchanges) != 2 {
		t.Fatalf("%v %d", err, len(c.Exchanges))
	}
}
