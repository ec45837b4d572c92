package app

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"rehome/backend/llm"
	"rehome/internal/testsupport/llmtest"
)

// peakRSS is this process's peak resident memory (VmHWM).
func peakRSS() int64 {
	data, _ := os.ReadFile("/proc/self/status")
	for _, ln := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(ln, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}

// Through the window's Ask, a hostile model server's endless answer is
// cut at its bound and said so; what is kept and what a later list of
// conversations returns stay small.
func TestAskHostileServerThroughApp(t *testing.T) {
	a := openApp(t)
	before := peakRSS()
	for _, mode := range []string{llmtest.HostileDeltas, llmtest.HostileReasoning, llmtest.HostileCall} {
		srv := llmtest.Hostile(t, mode, 50*time.Millisecond)
		start := time.Now()
		conv, err := a.Ask(AskRequest{Server: srv.URL + "/v1", Model: llmtest.HostileModel, Question: "a question"})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		tr := conv.Exchanges[0]
		stored, _ := json.Marshal(conv)
		t.Logf("%s: %s, kept %d bytes: %.120s", mode, time.Since(start).Round(time.Millisecond), len(stored), tr.Error)
		if !strings.Contains(tr.Error, "rehome cut the answer there") || len(stored) > llm.MaxReplyBytes+64<<10 {
			t.Errorf("%s: stopped %s (%s), %d bytes kept", mode, tr.Stopped, tr.Error, len(stored))
		}
	}
	start := time.Now()
	list, err := a.ListConversations(0)
	data, _ := json.Marshal(list)
	t.Logf("list: %d conversations, %d bytes, %s; peak RSS of the test process %d → %d MiB", len(list), len(data), time.Since(start), before>>20, peakRSS()>>20)
	if err != nil || len(list) != 3 || len(data) > 4<<10 {
		t.Fatalf("list: %v, %d bytes", err, len(data))
	}
}
