package core

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/sandbox"
	"rehome/sandbox/link"
)

// The Sandbox host: refused in words, saved, read back without the write
// lock, and used by the engine's options unless --podman or
// $CONTAINER_HOST names a service.
func TestSandboxHostSetting(t *testing.T) {
	key := filepath.Join(t.TempDir(), "id")
	os.WriteFile(key, []byte("x"), 0o600)
	open := filepath.Join(t.TempDir(), "open")
	os.WriteFile(open, []byte("x"), 0o644)
	for _, c := range []struct {
		h    SandboxHost
		says string
	}{
		{SandboxHost{URI: "unix:///run/podman/podman.sock"}, "not a team host's address"},
		{SandboxHost{URI: "ssh://alice@gpu-box"}, "names no socket"},
		{SandboxHost{Identity: key}, "give its ssh:// address too"},
		{SandboxHost{URI: "ssh://alice@gpu-box/x.sock", Identity: "/nonexistent/id"}, "there is no identity file"},
		{SandboxHost{URI: "ssh://alice@gpu-box/x.sock", Identity: open}, "chmod 600"},
	} {
		if err := CheckSandboxHost(c.h); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%+v: %v (want %q)", c.h, err, c.says)
		}
	}
	if err := CheckSandboxHost(SandboxHost{URI: "ssh://alice@gpu-box/x.sock", Identity: open}); !errors.Is(err, link.ErrIdentityTooOpen) {
		t.Errorf("a 0644 identity: %v", err)
	}

	dir := t.TempDir()
	c := New(dir, Options{})
	if err := c.Open(); err != nil {
		t.Fatal(err)
	}
	want := SandboxHost{URI: "ssh://alice@gpu-box/run/user/1000/podman/podman.sock", Identity: key}
	if _, err := c.TeamHost().Save(want); err != nil {
		t.Fatal(err)
	}
	if got, err := c.TeamHost().Saved(); err != nil || got != want {
		t.Fatalf("saved %+v, %v", got, err)
	}
	c.Close()
	// A core that never opens the database (sandbox commands) reads it.
	bare := New(dir, Options{})
	t.Setenv("CONTAINER_HOST", "")
	if o := bare.engineOptions(); o.Connect.URI != want.URI || o.Connect.Identity != key {
		t.Fatalf("engine options from Settings: %+v", o.Connect)
	}
	// --podman wins, then $CONTAINER_HOST.
	named := New(dir, Options{Sandbox: sandbox.Options{Connect: link.ConnectOptions{URI: "unix:///x.sock"}}})
	if o := named.engineOptions(); o.Connect.URI != "unix:///x.sock" {
		t.Fatalf("--podman: %+v", o.Connect)
	}
	t.Setenv("CONTAINER_HOST", "unix:///y.sock")
	if o := bare.engineOptions(); o.Connect.URI != "" {
		t.Fatalf("$CONTAINER_HOST: %+v", o.Connect)
	}
	// Back to this machine.
	c = New(dir, Options{})
	c.Open()
	defer c.Close()
	if _, err := c.TeamHost().Save(SandboxHost{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.TeamHost().Saved(); got != (SandboxHost{}) {
		t.Fatalf("after going back: %+v", got)
	}
}
