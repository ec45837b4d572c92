package sandbox

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/store"
)

// A run written by a newer rehome is refused with words that say what to
// do; an old run (before the schema field) still loads.
func TestRecordSchemaVersions(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	newer, older := NewRunID(), NewRunID()
	st.Put(store.Runs, newer, map[string]any{"schema": RecordSchema + 1, "id": newer, "code": "print(1)", "result": map[string]any{"later": true}})
	st.Put(store.Runs, older, map[string]any{"id": older, "code": "print(2)"})
	_, err = GetRecord(st, newer)
	if !errors.Is(err, store.ErrNewer) || !strings.Contains(err.Error(), "update rehome") || !strings.Contains(err.Error(), "run "+newer) {
		t.Errorf("a newer run: %v", err)
	}
	if r, err := GetRecord(st, older); err != nil || r.Code != "print(2)" {
		t.Errorf("an old run: %+v, %v", r, err)
	}
	if _, err := GetRecord(st, NewRunID()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a missing run: %v", err)
	}
}
