package bridge

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"rehome/app"
	"rehome/backend/core"
)

// The Sandbox host decides where every later input file goes. Through the
// bridge, whatever holds the token could point it at a host it runs: a new
// team host is refused there (the bridge has no dialog of its own), and
// nothing is saved; going back to this machine still works. On 089ebe7's
// successors SetSandboxHost saved it at once.
func TestSetSandboxHostThroughBridgeRefused(t *testing.T) {
	h, srv, token := bridge(t)
	hdr := map[string]string{TokenHeader: token}
	evil, _ := json.Marshal([]any{core.SandboxHost{URI: "ssh://mallory@127.0.0.1:1/run/user/1000/podman/podman.sock"}})
	code, body := do(t, "POST", srv.URL+"/api/call/SetSandboxHost", string(evil), hdr)
	if !strings.Contains(body, `"error":"the Sandbox host decides where your files go, so a browser page cannot change it`) {
		t.Fatalf("SetSandboxHost through the bridge: %d %s", code, body)
	}
	if saved, err := h.SandboxHost(); err != nil || saved.URI != "" {
		t.Fatalf("the bridge's host was saved: %+v %v", saved, err)
	}
	back, _ := json.Marshal([]any{core.SandboxHost{}})
	if code, body := do(t, "POST", srv.URL+"/api/call/SetSandboxHost", string(back), hdr); code != 200 || strings.Contains(body, `"error"`) {
		t.Fatalf("back to this machine: %d %s", code, body)
	}
}

// askingWindow is a window whose own dialog answers yes or no, and counts
// what it was asked.
type askingWindow struct {
	mu     sync.Mutex
	asked  []string
	answer bool
}

func (w *askingWindow) Emit(string, any) {}
func (w *askingWindow) OpenFileDialog(string, []app.FileFilter) (string, error) {
	return "", errors.New("no")
}
func (w *askingWindow) SaveFileDialog(string, string) (string, error) { return "", errors.New("no") }
func (w *askingWindow) TakeOpened() []string                          { return nil }
func (w *askingWindow) ConfirmDialog(title, message string) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.asked = append(w.asked, message)
	return w.answer, nil
}

// In the window, a new team host is tested afresh first: one that does
// not answer is refused before the dialog is even shown, and not saved.
func TestSetSandboxHostInWindowTestsFirst(t *testing.T) {
	h, _, _ := bridge(t)
	w := &askingWindow{answer: true}
	h.SetEmitter(w)
	_, err := h.SetSandboxHost(core.SandboxHost{URI: "ssh://mallory@127.0.0.1:1/run/user/1000/podman/podman.sock"})
	if err == nil || !strings.Contains(err.Error(), "connection test failed") {
		t.Fatalf("a host that does not answer: %v", err)
	}
	if len(w.asked) != 0 {
		t.Fatalf("the dialog was shown for a host that failed its test: %q", w.asked)
	}
	if saved, _ := h.SandboxHost(); saved.URI != "" {
		t.Fatalf("saved: %+v", saved)
	}
}
