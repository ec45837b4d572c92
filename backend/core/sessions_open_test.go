package core

import (
	"context"
	"errors"
	"testing"
	"time"

	"rehome/backend/llm"
)

// One least-recently-used eviction for the sessions a face opened
// (Sessions.Open calls Evict("") at the bound) and those of the
// conversations an answer runs code in (their executor's MakeRoom, built
// by Asks.session): the same open sessions, the same rule, so both callers
// stop the same one — the one used longest ago that may give way, never
// an answering conversation's nor the caller's own.
func TestOneEvictionForFacesAndConversations(t *testing.T) {
	type caller struct {
		name  string
		evict func(c *Core, makeRoom func() bool) bool
	}
	callers := []caller{
		{"a face opening a file", func(c *Core, _ func() bool) bool { return c.Sessions().Evict("") }},
		{"an answer's first cell", func(_ *Core, makeRoom func() bool) bool { return makeRoom() }},
	}
	var answers [][]string
	for _, cl := range callers {
		c := New(t.TempDir(), Options{})
		var stopped []string
		stopper := func(key string) func(context.Context) error {
			return func(context.Context) error { stopped = append(stopped, key); return nil }
		}
		// As Open keeps a face's session, and Asks.session a
		// conversation's (started, answering or not).
		answering := false
		c.open.put("face-old", &openSession{stop: stopper("face-old")})
		c.open.put(conversationKey("busy"), &openSession{mayGo: func() bool { return !answering }, stop: stopper("conversation busy")})
		c.open.put(conversationKey("idle"), &openSession{mayGo: func() bool { return true }, stop: stopper("conversation idle")})
		c.open.put("face-new", &openSession{stop: stopper("face-new")})
		// The asking conversation's own executor, as an answer gets it.
		conv := llm.NewConversation()
		x, fresh := c.askSvc.session(conv, nil, DefaultLimits, AskRequest{})
		if !fresh || x.MakeRoom == nil {
			t.Fatalf("%s: no fresh executor with a MakeRoom", cl.name)
		}
		base := time.Now().Add(-time.Hour)
		for i, k := range []string{conversationKey("busy"), "face-old", conversationKey("idle"), "face-new", conversationKey(conv.ID)} {
			c.open.byID[k].used = base.Add(time.Duration(i) * time.Minute)
		}
		answering = true
		for range 4 {
			if !cl.evict(c, x.MakeRoom) {
				break
			}
		}
		if cl.evict(c, x.MakeRoom) {
			t.Fatalf("%s: evicted past the sessions that may give way: %v", cl.name, stopped)
		}
		if _, ok := c.open.byID[conversationKey(conv.ID)]; !ok {
			t.Fatalf("%s: the asking conversation's own session went", cl.name)
		}
		answers = append(answers, stopped)
	}
	want := []string{"face-old", "conversation idle", "face-new"}
	for i, got := range answers {
		if len(got) != len(want) {
			t.Fatalf("%s stopped %v, want %v", callers[i].name, got, want)
		}
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("%s stopped %v, want %v", callers[i].name, got, want)
			}
		}
	}
}

// The id rule of an open session is Find's: an id that is no folder name
// is refused as such; a well-formed one this process holds no session of
// says to open its file again; a conversation's key is not an id. Interrupt,
// Restart and Stop by id reach a relay's session when this process did not
// open it, by the same rule.
func TestOpenedSessionIDRule(t *testing.T) {
	c := New(t.TempDir(), Options{})
	for _, id := range []string{"", "../x", "a/b", ".hidden", conversationKey("c1")} {
		var e *SessionIDError
		if _, err := c.Sessions().Opened(id); !errors.As(err, &e) || e.Missing {
			t.Fatalf("Opened(%q): %v", id, err)
		}
	}
	_, err := c.Sessions().Opened("20261204-abc")
	var e *SessionIDError
	if !errors.As(err, &e) || !e.Open || err.Error() != "session 20261204-abc is not open here: open its file again" {
		t.Fatalf("Opened of no open session: %v", err)
	}
	// By id, a session this process did not open is a relay's, found by
	// the same rule: none here.
	for _, act := range []func() error{
		func() error { return c.Sessions().Interrupt(context.Background(), "20261204-abc") },
		func() error { return c.Sessions().Restart(context.Background(), "20261204-abc") },
		func() error { return c.Sessions().Stop(context.Background(), "20261204-abc") },
	} {
		if err := act(); !errors.As(err, &e) || !e.Missing || e.Open || err.Error() != "no session 20261204-abc" {
			t.Fatalf("an action on no session: %v", err)
		}
	}
}
