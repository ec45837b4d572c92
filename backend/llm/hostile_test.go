package llm

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"rehome/internal/testsupport/llmtest"
)

// A hostile model server cannot grow what the client keeps, nor keep it
// waiting: each mode ends with what it sent cut at its bound, or at the
// whole-answer deadline, and the error says which.
func TestHostileServersBounded(t *testing.T) {
	for _, mode := range llmtest.HostileModes {
		t.Run(mode, func(t *testing.T) {
			srv := llmtest.Hostile(t, mode, 20*time.Millisecond)
			c := &Client{BaseURL: srv.URL + "/v1", Deadline: 2 * time.Second}
			var streamed int
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			r, err := c.ChatStream(ctx, ChatRequest{Model: llmtest.HostileModel}, func(d Delta) {
				streamed += len(d.Content) + len(d.Reasoning)
				if d.ToolCall != nil {
					streamed += len(d.ToolCall.Arguments)
				}
			})
			took := time.Since(start)
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			kept := len(r.Message.Content) + len(r.Message.Reasoning)
			for _, tc := range r.Message.ToolCalls {
				kept += len(tc.Function.Arguments)
			}
			t.Logf("%s: kept %d bytes, streamed %d, %s, heap allocated %d MiB: %v", mode, kept, streamed, took.Round(time.Millisecond), (after.TotalAlloc-before.TotalAlloc)>>20, err)
			if kept > MaxReplyBytes || streamed > MaxReplyBytes {
				t.Errorf("kept %d bytes and streamed %d, over the %d bound", kept, streamed, MaxReplyBytes)
			}
			if len(r.Message.Content) > MaxTextBytes || len(r.Message.Reasoning) > MaxReasoningBytes {
				t.Errorf("text %d, thinking %d bytes", len(r.Message.Content), len(r.Message.Reasoning))
			}
			for _, tc := range r.Message.ToolCalls {
				if len(tc.Function.Arguments) > MaxArgumentsBytes {
					t.Errorf("a call's arguments: %d bytes", len(tc.Function.Arguments))
				}
			}
			want := ErrTooLarge
			if mode == llmtest.HostilePing || mode == llmtest.HostileTrickle {
				want = ErrDeadline
			}
			if !errors.Is(err, want) {
				t.Fatalf("error %v, want %v", err, want)
			}
			if took > 20*time.Second {
				t.Errorf("took %s", took)
			}
		})
	}
}

// Keep-alive comments do not hold the idle timer off: a server that only
// pings is dropped after the idle time, long before the deadline.
func TestIdleTimerIgnoresComments(t *testing.T) {
	srv := llmtest.Hostile(t, llmtest.HostilePing, 50*time.Millisecond)
	c := &Client{BaseURL: srv.URL + "/v1", IdleTimeout: 500 * time.Millisecond, Deadline: time.Minute}
	start := time.Now()
	_, err := c.ChatStream(context.Background(), ChatRequest{Model: llmtest.HostileModel}, nil)
	if !errors.Is(err, ErrDropped) || time.Since(start) > 10*time.Second {
		t.Fatalf("after %s: %v, want the idle limit", time.Since(start), err)
	}
}

// A server whose every answer is within the per-answer bounds is stopped
// by the bound on one question: the loop ends with an error that says so,
// long before its code runs are spent.
func TestLoopStopsAtQuestionBound(t *testing.T) {
	srv := llmtest.Hostile(t, llmtest.HostileChatty, 0)
	runs := 0
	l := &Loop{Client: &Client{BaseURL: srv.URL + "/v1"}, Model: llmtest.HostileModel, MaxSteps: 50,
		Exec: execFunc(func(context.Context, string) (CellResult, error) { runs++; return CellResult{Stdout: "ok"}, nil })}
	tr := l.Ask(context.Background(), "q")
	kept := jsonSize(tr)
	t.Logf("stopped %s after %d runs, %d turns, %d bytes: %s", tr.Stopped, runs, len(tr.Turns), kept, tr.Error)
	if tr.Stopped != StopError || !strings.Contains(tr.Error, "answers to one question") || kept > MaxTranscriptBytes+MaxReplyBytes {
		t.Fatalf("stopped %s (%s), %d bytes", tr.Stopped, tr.Error, kept)
	}
}

// A server's error message is cut to MaxErrorMessage however long it is,
// in a status and inside the stream.
func TestServerErrorMessageBounded(t *testing.T) {
	long := strings.Repeat("e", 1<<20)
	for _, body := range []string{`{"error":{"message":"` + long + `"}}`, long} {
		err := statusError(500, []byte(body))
		if len(err.Error()) > MaxErrorMessage+200 {
			t.Errorf("status error: %d bytes", len(err.Error()))
		}
	}
	if err := streamError([]byte(`{"error":"` + long + `"}`)); len(err.Error()) > MaxErrorMessage+200 || !strings.Contains(err.Error(), "left out") {
		t.Errorf("stream error: %d bytes", len(err.Error()))
	}
}

// A call's name sent in endless fragments is bounded too.
func TestToolCallNameBounded(t *testing.T) {
	acc := newAccumulator(nil)
	var err error
	for i := 0; i < 10000 && err == nil; i++ {
		name := fmt.Sprintf("n%d", i)
		err = acc.chunk([]byte(`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"` + name + `"}}]}}]}`))
	}
	if r := acc.reply(); !errors.Is(err, ErrTooLarge) || len(r.Message.ToolCalls[0].Function.Name) > maxToolName {
		t.Fatalf("%v, name of %d bytes", err, len(r.Message.ToolCalls[0].Function.Name))
	}
}
