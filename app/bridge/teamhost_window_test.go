package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rehome/app"
	"rehome/backend/core"
	"rehome/internal/testsupport/sshdtest"
	"rehome/sandbox/link"
)

// In the window, a new team host — a real sshd on 127.0.0.1 in front of
// this machine's Podman service — is saved only once the user said Yes in
// the window's own dialog (app.HostConfirmer, GTK's in the real window),
// which names the host and its key's fingerprint; No saves nothing and
// says so. Both go through the window's door (app.Calls), as a click does.
func TestSetSandboxHostInWindowAsksInItsOwnDialog(t *testing.T) {
	if _, err := exec.LookPath("podman"); err != nil {
		if os.Getenv("REHOME_REQUIRE_PODMAN") == "1" {
			t.Fatal("podman is missing")
		}
		t.Skip("skipped: no podman here (set REHOME_REQUIRE_PODMAN=1 to make this a failure)")
	}
	conn, err := link.Open(context.Background(), link.ConnectOptions{ForceStart: true, Runtime: "runc"})
	if err != nil {
		t.Fatalf("a Podman service for the team host: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	sock, ok := strings.CutPrefix(conn.URI, "unix://")
	if !ok {
		t.Fatalf("not a unix socket: %s", conn.URI)
	}
	srv := sshdtest.Start(t, sshdtest.Options{})
	// The user's ~/.ssh: a HOME of the test's own, never root's.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("SSH_AUTH_SOCK", "")
	t.Setenv("CONTAINER_HOST", "")
	ssh := filepath.Join(home, ".ssh")
	os.Mkdir(ssh, 0o700)
	os.WriteFile(filepath.Join(ssh, "known_hosts"), []byte(srv.HostKeyLine+"\n"), 0o600)
	key, _ := os.ReadFile(srv.ClientKey)
	id := filepath.Join(ssh, "id_team")
	os.WriteFile(id, key, 0o600)
	want := core.SandboxHost{URI: srv.URI(sock), Identity: id}
	args, _ := json.Marshal(want)

	h, _, _ := bridge(t)
	calls := app.NewCalls(h.App)
	for _, yes := range []bool{false, true} {
		w := &askingWindow{answer: yes}
		h.SetEmitter(w)
		res, err := calls.Call("SetSandboxHost", []json.RawMessage{args})
		if len(w.asked) != 1 || !strings.Contains(w.asked[0], srv.Fingerprint) || !strings.Contains(w.asked[0], "whoever runs it sees your files") {
			t.Fatalf("answer %v: the window's dialog asked %q", yes, w.asked)
		}
		saved, _ := h.SandboxHost()
		if !yes {
			if !errors.Is(err, app.ErrHostNotConfirmed) || saved.URI != "" {
				t.Fatalf("No in the dialog: %v, saved %+v", err, saved)
			}
			continue
		}
		if err != nil || saved.URI != want.URI || res.(core.SandboxHost).URI != want.URI {
			t.Fatalf("Yes in the dialog: %v, saved %+v", err, saved)
		}
	}
	// The host saved already needs no second confirmation.
	w := &askingWindow{answer: false}
	h.SetEmitter(w)
	if _, err := calls.Call("SetSandboxHost", []json.RawMessage{args}); err != nil || len(w.asked) != 0 {
		t.Fatalf("the saved host again: %v, asked %q", err, w.asked)
	}
}
