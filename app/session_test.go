package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionThroughApp drives a session the way the Code Interpreter
// screen does: started when the file is dropped (the same session for the
// same file), cells sharing state, Interrupt, Restart, export, and every
// session gone when the app closes.
func TestSessionThroughApp(t *testing.T) {
	needPodman(t)
	a := openApp(t)
	// As uploaded through the browser: a session opens only a file the
	// user gave rehome.
	dir := filepath.Join(a.cfg.DataDir, UploadsDir, "session-test")
	os.MkdirAll(dir, 0o755)
	csv := filepath.Join(dir, "d.csv")
	os.WriteFile(csv, []byte("x\n1\n2\n"), 0o644)
	info, err := a.StartSession(csv)
	if err != nil {
		if os.Getenv("REHOME_REQUIRE_PODMAN") != "1" && strings.Contains(err.Error(), "image") {
			t.Skipf("no sandbox image: %v", err)
		}
		t.Fatal(err)
	}
	again, err := a.StartSession(csv)
	if err != nil || again.ID != info.ID {
		t.Fatalf("a second drop of the same file: %v %s != %s", err, again.ID, info.ID)
	}
	r, err := a.ExecCell(info.ID, "import pandas as pd\ndf = pd.read_csv('d.csv')", 0)
	if err != nil || r.Status != "ok" {
		t.Fatalf("cell 1: %v %+v", err, r)
	}
	r, err = a.ExecCell(info.ID, "df.x.sum()", 0)
	if err != nil || len(r.Displays) != 1 || r.Displays[0].Text != "3" || r.Cell != 2 {
		t.Fatalf("cell 2: %v %+v", err, r)
	}
	if err := a.RestartSession(info.ID); err != nil {
		t.Fatal(err)
	}
	r, _ = a.ExecCell(info.ID, "'df' in globals()", 0)
	if len(r.Displays) != 1 || r.Displays[0].Text != "False" {
		t.Fatalf("after restart: %+v", r)
	}
	nb, err := a.ExportSession(info.ID, "ipynb")
	if err != nil || !strings.Contains(nb, `"nbformat": 4`) || !strings.Contains(nb, "df.x.sum()") {
		t.Fatalf("export: %v %.300s", err, nb)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ExecCell(info.ID, "1", 0); err == nil {
		t.Fatal("a session survived the app's close")
	}
	out, _ := exec.Command("podman", "ps", "-a", "--filter", "label=io.rehome.session="+info.ID, "--format", "{{.ID}}").Output()
	if strings.TrimSpace(string(out)) != "" {
		t.Fatalf("session container left after close: %s", out)
	}
}
