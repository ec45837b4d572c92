package app

import (
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/assistant"
	"rehome/backend/store"
)

func TestBackupDatabaseWhileOpen(t *testing.T) {
	dir := t.TempDir()
	a := New(Config{DataDir: dir})
	if _, err := a.BackupDatabase(); err == nil {
		t.Fatal("backup before the store is open succeeded")
	}
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.CreateAssistant(assistant.Assistant{Name: "kept"}); err != nil {
		t.Fatal(err)
	}
	info, err := a.BackupDatabase()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.Path, filepath.Join(dir, BackupsDir)+"/") || info.Bytes == 0 {
		t.Fatalf("backup went to %+v", info)
	}
	// The copy is a sound database holding the assistant, and the browser may fetch it.
	st, err := store.Open(info.Path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, _ := st.Count(store.Assistants); n != 1 {
		t.Fatalf("backup holds %d assistants", n)
	}
	if _, err := ServedFile(a.App, info.Path); err != nil {
		t.Fatalf("backup not downloadable: %v", err)
	}
	// A second backup in the same second gets its own file.
	again, err := a.BackupDatabase()
	if err != nil || again.Path == info.Path {
		t.Fatalf("second backup: %+v %v", again, err)
	}
}
