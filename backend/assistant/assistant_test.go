package assistant

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"rehome/backend/store"
)

// Concurrent edits of one assistant, each changing its own field or
// appending to the same list, are all kept: Edit reads and writes in one
// transaction. (With a read in one transaction and the write in another,
// the last writer undid the others.)
func TestEditConcurrent(t *testing.T) {
	s := newService(t)
	a, err := s.Create(Assistant{Name: "Analyst"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 24
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Add(2)
		// A different field each: four fields, edited by six goroutines each.
		go func() {
			defer wg.Done()
			_, err := s.Edit(a.ID, func(x *Assistant) error {
				v := fmt.Sprint("edit ", i)
				switch i % 4 {
				case 0:
					x.Description += v + ";"
				case 1:
					x.Instructions += v + ";"
				case 2:
					x.Notes += v + ";"
				case 3:
					x.Knowledge = append(x.Knowledge, KnowledgeFile{Name: fmt.Sprint("file ", i)})
				}
				time.Sleep(time.Millisecond) // widen the window a lost update needs
				return nil
			})
			errs <- err
		}()
		// The same field: every goroutine appends its starter.
		go func() {
			defer wg.Done()
			_, err := s.Edit(a.ID, func(x *Assistant) error {
				x.Starters = append(x.Starters, fmt.Sprint("starter ", i))
				return nil
			})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Get(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Starters) != n {
		t.Errorf("%d of %d starters kept: %q", len(got.Starters), n, got.Starters)
	}
	var edits int
	for i := range n {
		v := fmt.Sprint("edit ", i, ";")
		var field string
		switch i % 4 {
		case 0:
			field = got.Description
		case 1:
			field = got.Instructions
		case 2:
			field = got.Notes
		case 3:
			if slices.ContainsFunc(got.Knowledge, func(k KnowledgeFile) bool { return k.Name == fmt.Sprint("file ", i) }) {
				edits++
			} else {
				t.Errorf("knowledge file of edit %d lost", i)
			}
			continue
		}
		if strings.Contains(field, v) {
			edits++
		} else {
			t.Errorf("edit %d lost", i)
		}
	}
	if edits != n || got.Name != "Analyst" || !got.Created.Equal(a.Created) || got.ID != a.ID {
		t.Errorf("%d of %d edits kept; %+v", edits, n, got)
	}
}

// Update replaces the record but keeps its id and creation time; an edit
// that fails validation stores nothing.
func TestUpdateKeepsCreated(t *testing.T) {
	s := newService(t)
	a, _ := s.Create(Assistant{Name: "One"})
	b, err := s.Update(Assistant{ID: a.ID, Name: "Two", Created: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != "Two" || !b.Created.Equal(a.Created) || b.Schema != SchemaVersion {
		t.Errorf("%+v", b)
	}
	if _, err := s.Update(Assistant{ID: a.ID, Name: ""}); !errors.Is(err, ErrInvalid) {
		t.Errorf("an empty name: %v", err)
	}
	if got, _ := s.Get(a.ID); got.Name != "Two" {
		t.Errorf("a refused edit was stored: %+v", got)
	}
	if _, err := s.Update(Assistant{ID: "nope", Name: "x"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a missing id: %v", err)
	}
}

// An assistant written by a newer rehome is refused, neither read nor
// overwritten; an old one (before the schema field) still loads.
func TestSchemaVersions(t *testing.T) {
	s := newService(t)
	newer := map[string]any{"schema": SchemaVersion + 1, "id": "01newer", "name": "From the future", "field_of_the_future": true}
	older := map[string]any{"id": "01older", "name": "From the past"}
	for id, rec := range map[string]any{"01newer": newer, "01older": older} {
		if err := s.st.Put(store.Assistants, id, rec); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.Get("01newer")
	if !errors.Is(err, store.ErrNewer) || !strings.Contains(err.Error(), "update rehome") {
		t.Errorf("Get of a newer assistant: %v", err)
	}
	if _, err := s.Update(Assistant{ID: "01newer", Name: "Overwritten"}); !errors.Is(err, store.ErrNewer) {
		t.Errorf("Update of a newer assistant: %v", err)
	}
	var raw map[string]any
	s.st.Get(store.Assistants, "01newer", &raw)
	if raw["name"] != "From the future" || raw["field_of_the_future"] != true {
		t.Errorf("the newer record was changed: %v", raw)
	}
	old, err := s.Get("01older")
	if err != nil || old.Name != "From the past" {
		t.Errorf("an old assistant: %+v, %v", old, err)
	}
	if up, err := s.Update(Assistant{ID: "01older", Name: "Now"}); err != nil || up.Schema != SchemaVersion {
		t.Errorf("updating an old assistant: %+v, %v", up, err)
	}
}
