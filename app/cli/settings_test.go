package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"rehome/app"
	"rehome/sandbox"
)

// TestSettingsCLI: `rehome settings` shows what is saved with this
// machine's range; `settings set` saves through the check Settings →
// Sandbox uses (the window sees the same values, and refuses the same
// ones); a bad key names the valid keys; a bad or out-of-range value
// saves nothing.
func TestSettingsCLI(t *testing.T) {
	home := t.TempDir()
	r := rehomeCLI(t, home, "settings")
	if r.code != 0 || !strings.Contains(r.stdout, "timeout  30s") || !strings.Contains(r.stdout, "SAFE RANGE HERE") {
		t.Fatalf("settings: %+v", r)
	}
	r = rehomeCLI(t, home, "settings", "set", "timeout=3s", "memory=1GiB", "cpus=0.5", "pids=256")
	if r.code != 0 {
		t.Fatalf("settings set: %+v", r)
	}
	var got struct {
		Limits sandbox.Limits      `json:"limits"`
		Bounds sandbox.LimitBounds `json:"bounds"`
	}
	r = rehomeCLI(t, home, "settings", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("settings --json: %v %+v", err, r)
	}
	want := sandbox.Limits{Timeout: 3 * time.Second, Memory: 1 << 30, CPUs: 0.5, Pids: 256}.WithDefaults()
	if got.Limits != want || got.Bounds.Max.Timeout == 0 {
		t.Fatalf("saved %+v (bounds %+v), want %+v", got.Limits, got.Bounds, want)
	}

	// Refused, each with its reason, and nothing saved.
	for _, bad := range []struct{ arg, says string }{
		{"frob=1", "the keys are timeout, memory, cpus, pids"},
		{"timeout", "is not KEY=VALUE"},
		{"memory=lots", "is not a size"},
		{"timeout=-3s", "is not a time"},
		{"timeout=9h", "outside the safe range"},
		{"cpus=4096", "CPU"},
	} {
		wantUsageError(t, rehomeCLI(t, home, "settings", "set", "pids=999", bad.arg), bad.says)
	}
	wantUsageError(t, rehomeCLI(t, home, "settings", "set"), "KEY=VALUE")

	// The window reads what the terminal saved, and refuses what it refused.
	a := app.New(app.Config{DataDir: home})
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	l, err := a.RunLimits()
	if err != nil || l != want {
		t.Fatalf("the window reads %+v %v, want %+v", l, err, want)
	}
	if _, err := a.SetRunLimits(sandbox.Limits{Timeout: 9 * time.Hour}); err == nil || !strings.Contains(err.Error(), "outside the safe range") {
		t.Fatalf("the window took 9h: %v", err)
	}
	a.Close()

	r = rehomeCLI(t, home, "settings", "reset")
	if r.code != 0 || !strings.Contains(r.stdout, "timeout  30s") {
		t.Fatalf("settings reset: %+v", r)
	}
}
