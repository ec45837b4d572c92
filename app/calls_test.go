package app

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// Calls reaches every exported method of the App, and a panic in one is
// an error in words, for the window (which binds Calls: Wails v2 recovers
// nowhere) and the bridge alike. Through Wails' own dispatcher:
// app/window's TestWailsCallPathTurnsAPanicIntoAnError.
func TestCallsTurnAPanicIntoAnErrorInWords(t *testing.T) {
	broken := NewCalls(&App{}) // never opened: its core is nil
	res, err := broken.Call("ListAssistants", nil)
	if res != nil || err == nil || !strings.Contains(err.Error(), "ListAssistants stopped on input it could not read (runtime error: invalid memory address or nil pointer dereference): nothing was changed") {
		t.Fatalf("%v %v", res, err)
	}
	if _, err := NewCalls(nil).Call("ListAssistants", nil); err == nil || !strings.Contains(err.Error(), "stopped on input") {
		t.Fatalf("a nil App: %v", err)
	}

	dir := t.TempDir()
	h := New(Config{DataDir: dir})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	c := NewCalls(h.App)
	res, err = c.Call("Status", nil)
	if st, ok := res.(StatusInfo); err != nil || !ok || st.DataDir != dir {
		t.Fatalf("Status: %#v %v", res, err)
	}
	if _, err := c.Call("Nope", nil); !errors.Is(err, ErrNoMethod) || !strings.Contains(err.Error(), `"Nope"`) {
		t.Fatalf("unknown method: %v", err)
	}
	if _, err := c.Call("Status", []json.RawMessage{json.RawMessage(`1`)}); !errors.Is(err, ErrBadArguments) {
		t.Fatalf("an extra argument: %v", err)
	}
	if _, err := c.Call("UIReady", []json.RawMessage{json.RawMessage(`{"not":"a string"}`)}); !errors.Is(err, ErrBadArguments) || !strings.Contains(err.Error(), "argument 1") {
		t.Fatalf("a wrong type: %v", err)
	}
	if res, err := c.Call("UIReady", []json.RawMessage{json.RawMessage(`"hardware"`)}); res != nil || err != nil {
		t.Fatalf("a method of no result: %v %v", res, err)
	}
	// Every exported method of *App is reached, so a method added later
	// is guarded without a line of its own.
	if len(c.methods) < 90 {
		t.Fatalf("Calls reaches %d methods", len(c.methods))
	}
}

// A checklist fix runs in a goroutine of its own, outside Calls: a panic
// in it becomes the item's error in words, and the process lives on.
func TestFirstRunJobTurnsAPanicIntoItsError(t *testing.T) {
	h := New(Config{DataDir: t.TempDir()})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	a := h.App
	if !a.startJob("boom", "testing", func() error { panic("index out of range [7] with length 0") }) {
		t.Fatal("the job did not start")
	}
	deadline := time.Now().Add(5 * time.Second)
	for a.firstRunError("boom") == "" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if msg := a.firstRunError("boom"); !strings.Contains(msg, "the checklist's boom fix stopped on input it could not read (index out of range [7] with length 0)") {
		t.Fatalf("the job's error: %q", msg)
	}
}
