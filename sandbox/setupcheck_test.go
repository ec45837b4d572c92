package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/sandbox/link"
)

func writeArchive(t *testing.T, dir string, size int) (string, string) {
	t.Helper()
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i * 7)
	}
	p := filepath.Join(dir, ArchiveName())
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return p, hex.EncodeToString(sum[:])
}

func TestVerifyArchive(t *testing.T) {
	dir := t.TempDir()
	p, sum := writeArchive(t, dir, 9<<20)

	// No .sha256: not checked, not an error (an archive the user carried).
	if checked, err := verifyArchive(context.Background(), p); checked || err != nil {
		t.Fatalf("without a .sha256: checked=%v err=%v", checked, err)
	}

	// The sha256sum format, with progress.
	os.WriteFile(p+".sha256", []byte(sum+"  "+filepath.Base(p)+"\n"), 0o644)
	var stages []string
	var last int64
	ctx := WithLoadProgress(context.Background(), func(stage string, done, total int64) {
		stages = append(stages, stage)
		if total != 9<<20 || done < last {
			t.Errorf("progress %d of %d after %d", done, total, last)
		}
		last = done
	})
	if checked, err := verifyArchive(ctx, p); !checked || err != nil {
		t.Fatalf("a good archive: checked=%v err=%v", checked, err)
	}
	if last != 9<<20 || len(stages) < 2 || stages[0] != "verify" {
		t.Errorf("progress: stages %v, last %d", stages, last)
	}

	// One byte changed: refused, saying what to do.
	f, _ := os.OpenFile(p, os.O_RDWR, 0)
	f.WriteAt([]byte{0xff}, 5<<20)
	f.Close()
	_, err := verifyArchive(context.Background(), p)
	if !errors.Is(err, errArchiveDamaged) || !strings.Contains(err.Error(), "--reinstall rehome-sandbox-image") {
		t.Fatalf("a damaged archive: %v", err)
	}

	// A .sha256 that holds no sum.
	os.WriteFile(p+".sha256", []byte("not a sum\n"), 0o644)
	if _, err := verifyArchive(context.Background(), p); err == nil || !strings.Contains(err.Error(), "does not hold a SHA-256") {
		t.Fatalf("a malformed .sha256: %v", err)
	}

	// A cancelled context stops the check.
	os.WriteFile(p+".sha256", []byte(sum+"  x\n"), 0o644)
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := verifyArchive(cctx, p); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestPackagedImageArchive(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("REHOME_PACKAGED_IMAGE_DIR", dir)
	if p := PackagedImageArchive(); p != "" {
		t.Fatalf("found %q in an empty folder", p)
	}
	// Another recipe's archive is not this rehome's.
	os.WriteFile(filepath.Join(dir, "rehome-sandbox-000000000000.tar.gz"), []byte("x"), 0o644)
	if p := PackagedImageArchive(); p != "" {
		t.Fatalf("took another recipe's archive %q", p)
	}
	p, _ := writeArchive(t, dir, 10)
	if got := PackagedImageArchive(); got != p {
		t.Fatalf("PackagedImageArchive() = %q, want %q", got, p)
	}
}

func TestHasSubID(t *testing.T) {
	f := filepath.Join(t.TempDir(), "subuid")
	os.WriteFile(f, []byte("alice:100000:65536\nbob:165536:1000\n1001:231072:65536\n"), 0o644)
	for _, c := range []struct {
		name string
		uid  int
		want bool
	}{
		{"alice", 1000, true},
		{"bob", 1002, false},  // too few ids for a container's users
		{"carol", 1001, true}, // by uid
		{"dave", 1003, false},
	} {
		if got := hasSubID(f, c.name, c.uid); got != c.want {
			t.Errorf("hasSubID(%s, %d) = %v, want %v", c.name, c.uid, got, c.want)
		}
	}
	if hasSubID(filepath.Join(t.TempDir(), "none"), "alice", 1000) {
		t.Error("a missing file grants ids")
	}
}

// Which service rehome leaves for its own: only the user's own rootless
// one on vfs, found by itself, where native overlay is available.
func TestSkipUserStorage(t *testing.T) {
	t.Setenv("CONTAINER_HOST", "")
	vfs := Host{Rootless: true, StorageDriver: "vfs", ServiceURI: "unix:///run/user/7/podman/podman.sock"}
	if skipUserStorage(link.ConnectOptions{}, vfs) != link.OverlaySupported() {
		t.Errorf("the user's vfs socket: skip = %v on kernel %s", !link.OverlaySupported(), link.KernelRelease())
	}
	for name, c := range map[string]struct {
		o link.ConnectOptions
		h Host
	}{
		"--podman":       {link.ConnectOptions{URI: vfs.ServiceURI}, vfs},
		"shared storage": {link.ConnectOptions{SharedStorage: true}, vfs},
		"overlay":        {link.ConnectOptions{}, Host{Rootless: true, StorageDriver: "overlay"}},
		"rootful":        {link.ConnectOptions{}, Host{StorageDriver: "vfs"}},
		"rehome's own":   {link.ConnectOptions{}, Host{Rootless: true, StorageDriver: "vfs", ServiceStarted: true}},
	} {
		if skipUserStorage(c.o, c.h) {
			t.Errorf("%s: skipped", name)
		}
	}
	t.Setenv("CONTAINER_HOST", vfs.ServiceURI)
	if skipUserStorage(link.ConnectOptions{}, vfs) {
		t.Error("$CONTAINER_HOST: skipped")
	}
}

// The storage finding of the test service never asks for a reset.
func TestStorageFindingNoReset(t *testing.T) {
	e := testEngine(t)
	f, err := e.StorageFinding(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", f)
	if f.Driver == "" || f.GraphRoot == "" || !strings.Contains(f.Detail, f.Driver) || !strings.Contains(f.Detail, f.GraphRoot) {
		t.Errorf("the finding does not say which storage: %+v", f)
	}
	if strings.Contains(f.Detail, "reset") {
		t.Errorf("the finding suggests a reset: %q", f.Detail)
	}
}
