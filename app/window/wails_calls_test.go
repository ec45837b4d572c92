//go:build desktop && production

package window

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unsafe"

	wlogger "github.com/wailsapp/wails/v2/pkg/logger"
	"github.com/wailsapp/wails/v2/pkg/options"

	"rehome/app"
)

// Wails v2.9.2's own call path, the one a click in the window takes:
// binding.NewBindings reflects on what Bind lists, and the dispatcher's
// ProcessMessage decodes a "C" message, calls the bound method and
// answers the callback ("c" + JSON). Those packages are internal to
// Wails, so the test reaches them by their linker names (the window
// binary links them: the production build of wails.Run imports both).
// The Frontend and Events arguments are interfaces a call message never
// touches; nil ones are passed as nil interfaces (two zero words).

//go:linkname wailsLogger github.com/wailsapp/wails/v2/internal/logger.New
func wailsLogger(output wlogger.Logger) unsafe.Pointer

//go:linkname wailsBindings github.com/wailsapp/wails/v2/internal/binding.NewBindings
func wailsBindings(log unsafe.Pointer, structs []any, exemptions []any, obfuscate bool, enums []any) unsafe.Pointer

//go:linkname wailsDispatcher github.com/wailsapp/wails/v2/internal/frontend/dispatcher.NewDispatcher
func wailsDispatcher(ctx context.Context, log unsafe.Pointer, bindings unsafe.Pointer, events any, errfmt options.ErrorFormatter) unsafe.Pointer

//go:linkname wailsProcessMessage github.com/wailsapp/wails/v2/internal/frontend/dispatcher.(*Dispatcher).ProcessMessage
func wailsProcessMessage(d unsafe.Pointer, message string, sender any) (string, error)

// wailsCall sends one call message through Wails' dispatcher with bound
// bound, as the window's page does, and returns the callback it answers,
// or the panic that escaped Wails (which, in the window, runs in a
// goroutine of its own and ends the process).
func wailsCall(t *testing.T, bound any, method string, args ...any) (cb map[string]any, escaped any) {
	t.Helper()
	log := wailsLogger(wlogger.NewDefaultLogger())
	d := wailsDispatcher(context.Background(), log, wailsBindings(log, []any{bound}, nil, false, nil), nil, nil)
	raw := make([]json.RawMessage, len(args))
	for i, a := range args {
		raw[i], _ = json.Marshal(a)
	}
	msg, _ := json.Marshal(map[string]any{"name": method, "args": raw, "callbackID": "cb-1"})
	defer func() { escaped = recover() }()
	out, err := wailsProcessMessage(d, "C"+string(msg), nil)
	if err != nil {
		t.Fatalf("Wails refused the call %s: %v", method, err)
	}
	if !strings.HasPrefix(out, "c") || json.Unmarshal([]byte(out[1:]), &cb) != nil {
		t.Fatalf("Wails answered %q", out)
	}
	return cb, nil
}

// A bound method that panics (here: an App whose core never opened, so
// the first use of it dereferences nil) answers the page an error in
// words through Wails' real dispatcher; bound as Wails binds a struct
// directly, the same panic escapes Wails, which is why the window binds
// app.Calls and not the App.
func TestWailsCallPathTurnsAPanicIntoAnError(t *testing.T) {
	broken := &app.App{} // never opened: a.core is nil
	if _, escaped := wailsCall(t, broken, "app.App.ListAssistants"); escaped == nil {
		t.Fatal("the App bound directly did not panic through Wails: the test does not reach the hazard")
	} else {
		t.Logf("bound directly, the panic escapes Wails: %v", escaped)
	}

	cb, escaped := wailsCall(t, app.NewCalls(broken), "app.Calls.Call", "ListAssistants", []any{})
	if escaped != nil {
		t.Fatalf("a panic escaped Wails through app.Calls: %v", escaped)
	}
	msg, _ := cb["error"].(string)
	if cb["callbackid"] != "cb-1" || !strings.Contains(msg, "ListAssistants stopped on input it could not read") || !strings.Contains(msg, "nothing was changed") {
		t.Fatalf("the page got %v", cb)
	}

	// An ordinary call through the same door answers its result.
	h := app.New(app.Config{DataDir: t.TempDir()})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	cb, escaped = wailsCall(t, app.NewCalls(h.App), "app.Calls.Call", "Status", []any{})
	if escaped != nil || cb["error"] != nil {
		t.Fatalf("Status through app.Calls: %v %v", cb, escaped)
	}
	if res, _ := cb["result"].(map[string]any); res == nil || res["database"] == "" || res["database"] == nil {
		t.Fatalf("Status answered %v", cb)
	}
	// A name the App has none of, and arguments that do not decode.
	cb, _ = wailsCall(t, app.NewCalls(broken), "app.Calls.Call", "NoSuchMethod", []any{})
	if msg, _ := cb["error"].(string); !strings.Contains(msg, `rehome has no method "NoSuchMethod"`) {
		t.Fatalf("an unknown method: %v", cb)
	}
	cb, _ = wailsCall(t, app.NewCalls(broken), "app.Calls.Call", "Status", []any{"extra"})
	if msg, _ := cb["error"].(string); !strings.Contains(msg, "takes 0 arguments, got 1") {
		t.Fatalf("an extra argument: %v", cb)
	}
}
