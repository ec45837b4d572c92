package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A model server that keeps the connection busy without answering — ":
// ping" comments and events that carry no answer (an empty delta, the
// role again, usage) every 20 ms, or a JSON answer trickled as whitespace
// — is dropped at the idle cap, long before the answer's deadline, and
// the error says why in words. Before, an empty delta reset the timer (and
// any byte of a JSON answer did), so such a server was waited on until
// the 30-minute deadline.
func TestIdleCapCountsOnlyAnswer(t *testing.T) {
	events := []string{
		": ping\n\n",
		`data: {"choices":[{"index":0,"delta":{}}]}` + "\n\n",
		`data: {"choices":[{"index":0,"delta":{"role":"assistant"}}]}` + "\n\n",
		`data: {"choices":[{"index":0,"delta":{"content":""}}],"usage":{"prompt_tokens":1,"completion_tokens":0}}` + "\n\n",
	}
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := "text/event-stream"
		if strings.HasPrefix(r.URL.Path, "/json/") {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		w.(http.Flusher).Flush()
		for i := 0; ; i++ {
			part := events[i%len(events)]
			if ct == "application/json" {
				part = " \n"
			}
			if _, err := fmt.Fprint(w, part); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(20 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
	}))
	defer busy.Close()
	for _, mode := range []string{"sse", "json"} {
		c := &Client{BaseURL: busy.URL + "/v1", IdleTimeout: 400 * time.Millisecond, Deadline: time.Minute}
		if mode == "json" {
			c.BaseURL = busy.URL + "/json/v1"
		}
		start := time.Now()
		_, err := c.ChatStream(context.Background(), ChatRequest{Model: "m"}, nil)
		took := time.Since(start)
		if !errors.Is(err, ErrDropped) || took > 10*time.Second {
			t.Fatalf("%s: after %s: %v, want the idle cap", mode, took, err)
		}
		if !strings.Contains(err.Error(), "sent no answer for 400ms") || !strings.Contains(err.Error(), "pings and empty events do not count") {
			t.Fatalf("%s: the idle cap is not said in words: %v", mode, err)
		}
	}
}
