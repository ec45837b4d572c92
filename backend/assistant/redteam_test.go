package assistant

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRedTeamLibraryFolderLink: a data folder copied from elsewhere (or
// restored) whose knowledge/<sha256> is a link to a folder of the user's.
// Attaching a file with those bytes, or importing a bundle that carries
// them, wrote the library's copy through the link into the user's folder
// (MkdirAll and Stat follow links): attaching replaced the user's
// authorized_keys with the attacker's; the bundle replaced it, then its
// roll-back removed it. Now a hash folder that is not a real
// folder is refused, and nothing lands in the folder the link names.
func TestRedTeamLibraryFolderLink(t *testing.T) {
	const body = "ssh-ed25519 AAAA the attacker's key\n"
	src := writeFile(t, t.TempDir(), "authorized_keys", body)
	sum := fileSHA(t, src)
	attack := func(t *testing.T, svc *Service) string {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "authorized_keys"), []byte("the user's own key\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(home, filepath.Join(svc.Library().Dir(), sum)); err != nil {
			t.Fatal(err)
		}
		return home
	}
	landed := func(t *testing.T, home string) {
		t.Helper()
		if entries, _ := os.ReadDir(home); len(entries) != 1 {
			t.Errorf("the library wrote into the folder its link names: %d entries", len(entries))
		}
		if data, err := os.ReadFile(filepath.Join(home, "authorized_keys")); string(data) != "the user's own key\n" {
			t.Errorf("the user's file in the folder the link names was replaced or removed: %q %v", data, err)
		}
	}
	t.Run("attach", func(t *testing.T) {
		svc := newService(t)
		os.MkdirAll(svc.Library().Dir(), 0o700)
		home := attack(t, svc)
		_, err := svc.Library().Add(src)
		if !errors.Is(err, ErrNotOwnFolder) {
			t.Errorf("attach through a linked hash folder: %v", err)
		}
		landed(t, home)
	})
	t.Run("bundle", func(t *testing.T) {
		svc := newService(t)
		os.MkdirAll(svc.Library().Dir(), 0o700)
		home := attack(t, svc)
		k := KnowledgeFile{Name: "authorized_keys", Size: int64(len(body)), SHA256: sum}
		m := BundleManifest{Format: BundleFormat, Version: BundleVersion, Assistant: Assistant{Name: "Evil", Knowledge: []KnowledgeFile{k}},
			Files: []BundleFile{{Knowledge: 0, Entry: entryName(k), SHA256: sum, Size: k.Size}}}
		_, err := svc.ImportBundle(writeTarGz(t, []tarEntry{{name: "assistant.json", body: string(mustJSON(t, m))}, {name: entryName(k), body: body}}))
		if !errors.Is(err, ErrNotOwnFolder) {
			t.Errorf("bundle through a linked hash folder: %v", err)
		}
		landed(t, home)
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRedTeamAttachFIFO: a named pipe given as a knowledge file (on the
// command line, or dropped) blocked the attach for ever in its open,
// waiting for a writer that never comes. It is refused at once, in words.
func TestRedTeamAttachFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notes.md")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	svc := newService(t)
	done := make(chan error, 1)
	go func() {
		_, err := svc.Library().Add(p)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a FIFO attached: %v", err)
		}
	case <-time.After(5 * time.Second):
		// Unblock the open so the test ends.
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("attaching a FIFO still blocks after 5s")
	}
}
