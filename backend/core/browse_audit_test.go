package core

import (
	"strings"
	"testing"

	"rehome/backend/assistant"
	"rehome/backend/audit"
)

// The audit's web browsing for a Python GPT, air-gapped: without a
// library it does not port and names the ZIM to carry (DevDocs' Python
// documentation for its subject), and the checklist says so, with the
// command that adds that file; with the real test ZIM
// carried it is hosted from that library, the reason naming it; online
// with SearXNG set and no library, hosted through SearXNG.
func TestBrowseAudit(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Python tutor", Instructions: "Explain Python code.",
		Capabilities: []assistant.Capability{assistant.WebBrowsing}})
	if err != nil {
		t.Fatal(err)
	}
	vram, ram := int64(24<<30), int64(64<<30)
	web := func(airGapped bool) audit.Result {
		t.Helper()
		rec, err := c.Audits().Run(t.Context(), audit.Request{AssistantIDs: []string{a.ID}, AirGapped: airGapped, VRAMBytes: &vram, RAMBytes: &ram})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rec.Assistants[0].Capabilities {
			if r.ID == audit.WebBrowsing {
				return r
			}
		}
		t.Fatal("no web browsing in the audit")
		return audit.Result{}
	}
	r := web(true)
	if r.Category != audit.DoesNotPort || !strings.Contains(r.Reason, "Carry DevDocs' Python documentation (devdocs_en_python_<date>.zim from library.kiwix.org)") {
		t.Fatalf("air-gapped, no library: %s: %s", r.Category, r.Reason)
	}
	cl, err := c.Audits().Checklist(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !stepSays(cl, "Leave behind: web browsing", "rehome library add /media/usb/devdocs_en_python_<date>.zim --copy") {
		t.Fatalf("the checklist: %+v", cl.Steps)
	}
	searx := "http://127.0.0.1:8888"
	if _, err := c.Browse().SaveSettings(BrowsingChange{SearXNG: &searx}); err != nil {
		t.Fatal(err)
	}
	if r := web(false); r.Category != audit.Hosts || r.Label != "rehome hosts it" || !strings.Contains(r.Reason, "web_search asks SearXNG at http://127.0.0.1:8888") {
		t.Fatalf("online with SearXNG: %s: %s", r.Category, r.Reason)
	}
	if r := web(true); r.Category != audit.DoesNotPort {
		t.Fatalf("air-gapped with only an engine: %s", r.Category)
	}
	withLibrary(t, c)
	r = web(true)
	if r.Category != audit.Hosts || r.Rule != "air-gapped-library" || !strings.Contains(r.Reason, "from the carried library (Python 3.11 docs (test))") {
		t.Fatalf("air-gapped with a library: %s %s: %s", r.Category, r.Rule, r.Reason)
	}
	cl, _ = c.Audits().Checklist(a.ID)
	if !stepSays(cl, "Let rehome host web browsing", "--browse") {
		t.Fatalf("the checklist: %+v", cl.Steps)
	}
}

func stepSays(cl audit.Checklist, title, cmd string) bool {
	for _, s := range cl.Steps {
		if s.Title == title && strings.Contains(strings.Join(s.Commands, " ")+s.Detail, cmd) {
			return true
		}
	}
	return false
}
