package llm

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestStopKeepsPartialAnswer: a Stop while the model writes keeps the words
// that came as the answer, marked stopped (every chat app does; rehome
// threw them away). The server streams two pieces, then waits until the
// client leaves.
func TestStopKeepsPartialAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, piece := range []string{"South had ", "the most revenue"} {
			io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"`+piece+`"},"finish_reason":null}]}`+"\n\n")
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var got strings.Builder
	l := &Loop{Client: &Client{BaseURL: srv.URL + "/v1"}, Model: "m", Exec: &recordingExec{}, Stateless: true,
		OnEvent: func(e Event) {
			if e.Type == "token" {
				got.WriteString(e.Text)
				if strings.Contains(got.String(), "revenue") {
					cancel() // the user presses Stop
				}
			}
		}}
	tr := l.Ask(ctx, "Which region had the most revenue?")
	if tr.Stopped != StopCanceled {
		t.Fatalf("stopped %q (%s %s)", tr.Stopped, tr.Note, tr.Error)
	}
	if tr.Answer != "South had the most revenue" {
		t.Fatalf("answer after Stop %q, want the part that came", tr.Answer)
	}
	if len(tr.Turns) != 1 || tr.Turns[0].Text != tr.Answer || tr.Error != "" {
		t.Fatalf("turns %+v, error %q", tr.Turns, tr.Error)
	}
}
