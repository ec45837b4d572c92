package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/internal/testsupport/llmtest"
)

// One least-recently-used eviction, with real Podman sessions, driven
// from both of its callers: the Code Interpreter screen opening a file
// (StartSession) and an answer's first cell (Ask). At the data folder's
// bound (4 sessions) whichever opens the next one stops the session used
// longest ago — a file's or a conversation's — and no other.
func TestOneEvictionFromTheScreenAndTheAsk(t *testing.T) {
	needPodman(t)
	a := openApp(t)
	defer a.Close()
	lim, err := a.RunLimits()
	if err != nil {
		t.Fatal(err)
	}
	lim.Timeout = 2 * time.Minute // a loaded machine takes long to import pandas
	if _, err := a.SetRunLimits(lim); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(a.cfg.DataDir, UploadsDir, "evict")
	os.MkdirAll(dir, 0o755)
	file := func(name string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("x\n1\n"), 0o644)
		return p
	}
	var askFiles []string
	for _, f := range []string{"sales.csv", "targets.csv"} {
		data, err := os.ReadFile(filepath.Join(testdata, f))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, f)
		os.WriteFile(p, data, 0o644)
		askFiles = append(askFiles, p)
	}
	open := func(name string) string {
		t.Helper()
		info, err := a.StartSession(file(name))
		if err != nil {
			if os.Getenv("REHOME_REQUIRE_PODMAN") != "1" && strings.Contains(err.Error(), "image") {
				t.Skipf("no sandbox image: %v", err)
			}
			t.Fatalf("open %s: %v", name, err)
		}
		return info.ID
	}
	use := func(id string) {
		t.Helper()
		if r, err := a.ExecCell(id, "1", 0); err != nil || r.Status != "ok" {
			t.Fatalf("cell in %s: %v %+v", id, err, r)
		}
	}
	gone := func(id string) bool {
		_, err := a.ExecCell(id, "1", 0)
		return err != nil && strings.Contains(err.Error(), "is not open here")
	}
	ask := func() string {
		t.Helper()
		server := llmtest.Replay(t, testdata, "session-state").Base()
		conv, err := a.Ask(AskRequest{Files: askFiles, Server: server, Question: "Which region beat its target by the most?"})
		if err != nil {
			t.Fatal(err)
		}
		if cells := conv.Exchanges[0].Cells(); len(cells) == 0 || cells[0].Error != "" {
			t.Fatalf("the answer's cells: %+v", cells)
		}
		return conv.ID
	}

	// gone runs a cell in each session it finds open: a use, as the
	// screen's cells are. The conversation's session is used only by its
	// questions.
	s1, s2, s3 := open("a.csv"), open("b.csv"), open("c.csv")
	conv1 := ask() // the fourth session: the bound
	if a.core.Asks().SessionID(conv1) == "" {
		t.Fatal("the answer's cells ran in no session of the conversation")
	}
	use(s3)
	use(s1) // used longest ago: s2, then the conversation's
	s4 := open("d.csv")
	if !gone(s2) || gone(s1) || gone(s3) || a.core.Asks().SessionID(conv1) == "" {
		t.Fatalf("the screen's open at the bound: want only %s stopped", s2)
	}
	// Now the conversation's session is the one used longest ago.
	s5 := open("e.csv")
	if a.core.Asks().SessionID(conv1) != "" || gone(s1) || gone(s3) || gone(s4) {
		t.Fatal("the screen's second open at the bound: want the conversation's session stopped")
	}
	use(s3)
	use(s4)
	use(s5) // used longest ago: s1
	conv2 := ask()
	if a.core.Asks().SessionID(conv2) == "" || !gone(s1) || gone(s3) || gone(s4) || gone(s5) {
		t.Fatalf("the answer's first cell at the bound: want only %s stopped", s1)
	}
}
