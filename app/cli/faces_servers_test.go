package cli

import (
	"encoding/json"
	"testing"

	"rehome/app"
	"rehome/backend/llm"
	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// Which model servers are there is the core's answer for both faces: the
// carried models (once listed by the window alone) come in the terminal's
// `llm status` too, the same server with the same models and fit.
func TestServersSameFromBothFaces(t *testing.T) {
	bin := llamatest.Need(t)
	model := llamatest.Model(t, bin, t.TempDir(), tinymodel.DefaultScript("sales.csv", "region", "revenue"))
	home := t.TempDir()
	if r := rehomeCLI(t, home, "models", "add", model); r.code != 0 {
		t.Fatalf("models add: %+v", r)
	}
	r := rehomeCLI(t, home, "llm", "status", "--json")
	var cli []llm.Server
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &cli) != nil {
		t.Fatalf("llm status: %+v", r)
	}
	a := app.New(app.Config{DataDir: home})
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	win, err := a.LLMStatus("")
	if err != nil {
		t.Fatal(err)
	}
	carried := func(list []llm.Server) string {
		for _, s := range list {
			if s.BaseURL == "" {
				b, _ := json.Marshal(s)
				return string(b)
			}
		}
		return ""
	}
	c, w := carried(cli), carried(win)
	if c == "" || c != w {
		t.Fatalf("the carried models: the terminal's %s, the window's %s", c, w)
	}
}
