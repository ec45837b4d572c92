package store

import (
	"errors"
	"testing"
)

func TestGetCheckedKeepsDefaultsAndRefusesANewerRecord(t *testing.T) {
	s, _ := openTemp(t)
	r := record{Schema: 2, Text: "default"}
	if err := s.GetChecked(Settings, "k", &r, &r.Schema, 2); err != nil || r.Text != "default" {
		t.Fatalf("a record not stored: %+v, %v; want the defaults, no error", r, err)
	}
	if err := s.Put(Settings, "k", record{Schema: 3, Text: "newer"}); err != nil {
		t.Fatal(err)
	}
	r = record{}
	if err := s.GetChecked(Settings, "k", &r, &r.Schema, 2); !errors.Is(err, ErrNewer) {
		t.Fatalf("a record of schema 3 read by a build that knows 2: %v, want ErrNewer", err)
	}
	if err := s.GetChecked(Settings, "k", &r, &r.Schema, 3); err != nil || r.Text != "newer" {
		t.Fatalf("got %+v, %v", r, err)
	}
}

func TestUpsertStartsFreshThenChangesWhatIsStored(t *testing.T) {
	s, _ := openTemp(t)
	var r record
	fresh := func() { r = record{Schema: 1} }
	add := func() error { r.N++; return nil }
	for range 2 {
		if err := s.Upsert(Settings, "k", &r, fresh, add); err != nil {
			t.Fatal(err)
		}
		r = record{}
	}
	var got record
	if err := s.Get(Settings, "k", &got); err != nil || got.N != 2 || got.Schema != 1 {
		t.Fatalf("stored %+v, %v; want n 2 (created, then changed) and schema 1", got, err)
	}
	refuse := errors.New("no")
	if err := s.Upsert(Settings, "other", &r, fresh, func() error { return refuse }); !errors.Is(err, refuse) {
		t.Fatalf("fn's error: %v", err)
	}
	if err := s.Get(Settings, "other", &got); !errors.Is(err, ErrNotFound) {
		t.Fatalf("fn refused, yet a record was stored: %v", err)
	}
}
