package cli

import (
	"encoding/json"
	"slices"
	"testing"

	"rehome/app"
	"rehome/backend/core"
)

// TestReadinessOneList: `rehome doctor` prints the checklist the window's
// first run shows — the same items, in the same order, in the same states
// (a failure is a warning in the doctor: the rest of rehome works) — and
// a self-test run from the terminal ticks the window's item too.
func TestReadinessOneList(t *testing.T) {
	needPodmanCLI(t)
	home := t.TempDir()
	doctorChecks := func() map[string]string {
		t.Helper()
		r := rehomeCLI(t, home, "doctor", "--json")
		var rep struct{ Findings []finding }
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("doctor --json: %v %+v", err, r)
		}
		got, order := map[string]string{}, []string{}
		for _, f := range rep.Findings {
			if slices.Contains(core.CheckIDs, f.Check) {
				got[f.Check] = f.Status
				order = append(order, f.Check)
			}
		}
		if !slices.Equal(order, core.CheckIDs) {
			t.Fatalf("doctor's checklist %v, want %v", order, core.CheckIDs)
		}
		return got
	}
	windowChecks := func() map[string]string {
		t.Helper()
		a := app.New(app.Config{DataDir: home})
		if err := a.Open(); err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		fr, err := a.FirstRunStatus()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, it := range fr.Items {
			got[it.ID] = it.State
		}
		return got
	}
	same := func(doc, win map[string]string) {
		t.Helper()
		for _, id := range core.CheckIDs {
			want := win[id]
			if want == "fail" || want == "todo" {
				want = "warn"
			}
			if doc[id] != want {
				t.Errorf("%s: the doctor says %q, the window %q", id, doc[id], win[id])
			}
		}
	}
	win := windowChecks()
	same(doctorChecks(), win)
	if win["selftest"] != "todo" {
		t.Fatalf("self-test before it ran: %q", win["selftest"])
	}
	rehomeCLI(t, home, "sandbox", "doctor", "--json")
	win = windowChecks()
	if win["selftest"] != "ok" && win["selftest"] != "fail" {
		t.Fatalf("after `rehome sandbox doctor` the window's self-test item is %q", win["selftest"])
	}
	same(doctorChecks(), win)
}
