package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"rehome/app"
)

// The self-test is core.Sandbox.Doctor from both faces, and each keeps its
// outcome for the checklist: run in the terminal (`rehome sandbox
// doctor`), the window's checklist shows it; run in the window
// (VerifyIsolation), `rehome doctor` shows it — the same item, the same
// words, from either side. It runs without the sandbox image (the image's
// check then fails, and that is what is kept).
func TestSelfTestKeptFromBothFaces(t *testing.T) {
	needPodman(t)
	item := func(a *app.Host) app.FirstRunItem {
		fr, err := a.FirstRunStatus()
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range fr.Items {
			if it.ID == "selftest" {
				return it
			}
		}
		t.Fatalf("no selftest item: %+v", fr.Items)
		return app.FirstRunItem{}
	}
	finding := func(home string) (status, detail string) {
		r := rehomeCLI(t, home, "doctor", "--json")
		var out struct {
			Findings []struct{ Check, Status, Detail string } `json:"findings"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("doctor --json: %v %+v", err, r)
		}
		for _, f := range out.Findings {
			if f.Check == "selftest" {
				return f.Status, f.Detail
			}
		}
		t.Fatalf("no selftest finding: %s", r.stdout)
		return "", ""
	}

	// The terminal runs it; the window reads it.
	term := t.TempDir()
	r := rehomeCLI(t, term, "sandbox", "doctor", "--json")
	var rep struct{ Summary string }
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Summary == "" {
		t.Fatalf("sandbox doctor --json: %v %+v", err, r)
	}
	a := app.New(app.Config{DataDir: term})
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	fromTerm := item(a)
	a.Close()
	if fromTerm.State == "todo" || !strings.Contains(fromTerm.Detail, rep.Summary) {
		t.Fatalf("the terminal's self-test, in the window's checklist: %+v (the report said %q)", fromTerm, rep.Summary)
	}

	// The window runs it; the terminal and the window read it.
	win := t.TempDir()
	b := app.New(app.Config{DataDir: win})
	if err := b.Open(); err != nil {
		t.Fatal(err)
	}
	before := item(b)
	wrep, _ := b.VerifyIsolation()
	fromWin := item(b)
	b.Close()
	if before.State != "todo" || wrep.Summary != rep.Summary || fromWin != fromTerm {
		t.Fatalf("the window's self-test: before %+v, after %+v; the terminal's gave %+v (%q vs %q)", before, fromWin, fromTerm, wrep.Summary, rep.Summary)
	}
	status, detail := finding(win)
	tstatus, tdetail := finding(term)
	if status != tstatus || detail != tdetail || !strings.Contains(detail, rep.Summary) {
		t.Fatalf("rehome doctor: the window's run %s %q, the terminal's %s %q", status, detail, tstatus, tdetail)
	}
}
