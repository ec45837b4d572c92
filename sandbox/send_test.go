package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// A run whose files travel differs from a mounted one only in its input
// mounts (none), the size of /mnt/data (outputs plus the files sent), the
// runner's wait for its go, and the conmon timeout's margin for the send:
// every other field of the one hardened spec is the same.
func TestBuildSpecSentInputs(t *testing.T) {
	lim := DefaultLimits
	mounted := testJob(Enforcement{})
	mounted.more = []moreInput{{source: "/tmp/rehome-run-1/1/input", name: "notes.txt", dev: 7, ino: 10}}
	sent := testJob(Enforcement{})
	sent.inputSource, sent.inputDev, sent.inputIno = "", 0, 0
	sent.inputSize = 100
	sent.more = []moreInput{{name: "notes.txt", size: 20}}
	sent.sent = []*input{{name: "sales data.csv", size: 100}, {name: "notes.txt", size: 20}}

	a, b := buildSpec(lim, mounted), buildSpec(lim, sent)
	for _, m := range b.Mounts {
		if m.Type == "bind" {
			t.Errorf("a sent input is bind-mounted: %+v", m)
		}
	}
	if len(b.Mounts) != 2 || len(a.Mounts) != 4 {
		t.Fatalf("mounts: mounted %d (want 4), sent %d (want 2: /tmp and /mnt/data)", len(a.Mounts), len(b.Mounts))
	}
	wantSize := "size=" + strconv.FormatInt(lim.OutputBytes+120, 10)
	if !strings.Contains(strings.Join(b.Mounts[1].Options, ","), wantSize) || b.Mounts[1].Destination != containerDataDir {
		t.Errorf("/mnt/data for sent files: %+v, want %s", b.Mounts[1], wantSize)
	}
	if b.Timeout != a.Timeout+uint((sendLimit+sendGrace).Seconds()) {
		t.Errorf("conmon timeout %d, mounted %d: want the send's margin more", b.Timeout, a.Timeout)
	}
	var cfg map[string]any
	raw, _ := base64.StdEncoding.DecodeString(b.Command[5])
	json.Unmarshal(raw, &cfg)
	if cfg["await_ms"] != float64((sendLimit+sendGrace).Milliseconds()) || cfg["input_size"] != float64(100) {
		t.Errorf("the runner is not told to wait for its files: %v", cfg)
	}
	if in := cfg["inputs"].([]any)[0].(map[string]any); in["size"] != float64(20) || in["name"] != "notes.txt" {
		t.Errorf("further inputs' check: %v", in)
	}
	// Everything else: the same.
	a.Mounts, b.Mounts = nil, nil
	a.Timeout, b.Timeout = 0, 0
	a.Command, b.Command = nil, nil
	if !reflect.DeepEqual(a, b) {
		t.Errorf("a sent run's spec differs beyond its inputs:\nmounted %+v\nsent    %+v", a, b)
	}
}
