package assistant

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"rehome/backend/store"
)

// An assistant stored before the default model existed loads (with no
// model), and a model set later is kept through an update.
func TestDefaultModelStoredAndOldRecordsLoad(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	old := json.RawMessage(`{"schema":1,"id":"01OLD","name":"Sales analyst","description":"","instructions":"Be brief.","starters":[],"knowledge":[],"capabilities":["code_interpreter"],"actions":[],"remote_files":[],"notes":"","created":"2025-01-02T03:04:05Z","updated":"2025-01-02T03:04:05Z"}`)
	if err := st.Put(store.Assistants, "01OLD", old); err != nil {
		t.Fatal(err)
	}
	svc := NewService(st, t.TempDir())
	a, err := svc.Get("01OLD")
	if err != nil || a.Name != "Sales analyst" || a.Model != "" {
		t.Fatalf("old record: %v %+v", err, a)
	}
	a.Model = " qwen2.5:7b "
	if _, err := svc.Update(a); err != nil {
		t.Fatal(err)
	}
	if a, err = svc.Get("01OLD"); err != nil || a.Model != "qwen2.5:7b" || a.Instructions != "Be brief." {
		t.Fatalf("after update: %v %+v", err, a)
	}
}
