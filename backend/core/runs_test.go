package core

import (
	"errors"
	"strings"
	"testing"

	"rehome/backend/store"
	"rehome/sandbox"
)

// A run written by a newer rehome is refused with words that say what to
// do; an old run (before the schema field) still loads.
func TestRecordSchemaVersions(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	st, runs := c.Store(), c.Runs()
	newer, older := sandbox.NewRunID(), sandbox.NewRunID()
	st.Put(store.Runs, newer, map[string]any{"schema": sandbox.RecordSchema + 1, "id": newer, "code": "print(1)", "result": map[string]any{"later": true}})
	st.Put(store.Runs, older, map[string]any{"id": older, "code": "print(2)"})
	_, err := runs.Get(newer)
	if !errors.Is(err, store.ErrNewer) || !strings.Contains(err.Error(), "update rehome") || !strings.Contains(err.Error(), "run "+newer) {
		t.Errorf("a newer run: %v", err)
	}
	if r, err := runs.Get(older); err != nil || r.Code != "print(2)" {
		t.Errorf("an old run: %+v, %v", r, err)
	}
	if _, err := runs.Get(sandbox.NewRunID()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a missing run: %v", err)
	}
}
