package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/store"
	"rehome/sandbox"
)

// A cell run with `rehome session exec` joins the file's history like a
// cell of the window (core.Sessions.Keep): one record, source "session",
// the file and the code with it. The terminal kept none before.
func TestSessionExecKeepsTheCell(t *testing.T) {
	needPodmanCLI(t)
	home := t.TempDir()
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	csv := filepath.Join(dir, "cells.csv")
	os.WriteFile(csv, []byte("a,b\n1,2\n"), 0o644)
	r := rehomeCLI(t, home, "session", "start", "--file", csv, "--json")
	var info struct {
		ID string `json:"id"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &info) != nil {
		t.Fatalf("session start: %+v", r)
	}
	t.Cleanup(func() { rehomeCLI(t, home, "session", "stop", info.ID) })
	code := "import pandas as pd\nprint(len(pd.read_csv('/mnt/data/cells.csv')), 'row')\n"
	if r := rehomeCLIIn(t, home, strings.NewReader(code), "session", "exec", info.ID, "-"); r.code != 0 || !strings.Contains(r.stdout, "1 row") {
		t.Fatalf("session exec: %+v", r)
	}
	st, err := store.Open(filepath.Join(home, store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, err := store.List[sandbox.Record](st, store.Runs, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Source != "session" || recs[0].Code != code || recs[0].InputPath != csv {
		t.Fatalf("records after one cell: %+v", recs)
	}
}

// Every limit saved in Settings reaches a session started from the
// terminal, not only the four its flags carry to the relay process: the
// relay starts it through core.Sessions, as the window does (stdout and
// /tmp were the sandbox's defaults before).
func TestSessionGetsEverySavedLimit(t *testing.T) {
	needPodmanCLI(t)
	home := t.TempDir()
	if r := rehomeCLI(t, home, "settings", "set", "stdout=16KiB", "tmp=32MiB", "timeout=9s"); r.code != 0 {
		t.Fatalf("settings set: %+v", r)
	}
	r := rehomeCLI(t, home, "session", "start", "--json", "--pids", "64")
	var info struct {
		ID     string         `json:"id"`
		Limits sandbox.Limits `json:"limits"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &info) != nil {
		t.Fatalf("session start: %+v", r)
	}
	t.Cleanup(func() { rehomeCLI(t, home, "session", "stop", info.ID) })
	l := info.Limits
	if l.StdoutMax != 16<<10 || l.TmpSize != 32<<20 || l.Timeout.Seconds() != 9 || l.Pids != 64 {
		t.Fatalf("the session's limits %+v: want stdout 16 KiB, /tmp 32 MiB, timeout 9s as saved, pids 64 as given", l)
	}
}
