package core

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/backend/assistant"
	"rehome/backend/store"
	"rehome/sandbox"
)

func openCore(t *testing.T, dir string, opts Options) *Core {
	t.Helper()
	c := New(dir, opts)
	if err := c.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestOpenWiresEveryService: one constructor gives every face the same
// services, the audit wired to the hardware detection; a held database
// is an error a face can show, and a brief Core holds nothing.
func TestOpenWiresEveryService(t *testing.T) {
	dir := t.TempDir()
	c := openCore(t, dir, Options{})
	if c.Store() == nil || c.Assistants() == nil || c.Audits() == nil || c.Hardware() == nil || c.Runs() == nil || c.Ready() != nil {
		t.Fatalf("a service is missing: %+v", c)
	}
	// Another process's Open waits one StoreTimeout, then says who holds it.
	other := New(dir, Options{StoreTimeout: 100 * time.Millisecond})
	if err := other.Open(); !errors.Is(err, store.ErrLocked) || !errors.Is(other.Ready(), store.ErrLocked) || other.Err() == nil {
		t.Fatalf("second Open: %v, ready %v", err, other.Ready())
	}
	c.Close()
	brief := openCore(t, dir, Options{Brief: true})
	if brief.Store() != nil || brief.Assistants() != nil {
		t.Fatal("a brief core holds the database")
	}
	// ...so a window can open it meanwhile.
	openCore(t, dir, Options{})
}

// TestSavedLimitsEveryFace: limits saved through one core (Settings) are
// what a run on another core gets (the CLI's brief one), a request's
// fields win one by one, and a limit out of range is a LimitsError.
func TestSavedLimitsEveryFace(t *testing.T) {
	dir := t.TempDir()
	c := openCore(t, dir, Options{})
	if l, err := c.Runs().Saved(); err != nil || l != sandbox.DefaultLimits {
		t.Fatalf("nothing saved: %+v %v", l, err)
	}
	if _, err := c.Runs().Save(sandbox.Limits{Timeout: 17 * time.Second, Memory: 300 << 20}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Runs().Save(sandbox.Limits{CPUs: 4096})
	var le *LimitsError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "outside the safe range") {
		t.Fatalf("4096 cores: %v", err)
	}
	c.Close()

	b := openCore(t, dir, Options{Brief: true})
	l, err := b.Runs().Limits(sandbox.Limits{Pids: 99})
	if err != nil || l.Timeout != 17*time.Second || l.Memory != 300<<20 || l.Pids != 99 || l.CPUs != sandbox.DefaultLimits.CPUs {
		t.Fatalf("resolved %+v %v", l, err)
	}
	if _, err := b.Runs().Limits(sandbox.Limits{Memory: 100 << 40}); !errors.As(err, &le) {
		t.Fatalf("100 TiB: %v", err)
	}
	if _, err := b.Runs().Reset(); err != nil {
		t.Fatal(err)
	}
	if l, _ := b.Runs().Saved(); l != sandbox.DefaultLimits {
		t.Fatalf("after Reset: %+v", l)
	}
}

// TestExportOneWriter: the text an export returns is byte for byte what
// it writes to a file; a bundle that fails half way leaves no file, and no
// temporary one, behind.
func TestExportOneWriter(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	kdir := t.TempDir()
	kf := filepath.Join(kdir, "notes.txt")
	os.WriteFile(kf, []byte("facts\n"), 0o600)
	k, err := c.Assistants().Library().Add(kf)
	if err != nil || k.SHA256 != fmt.Sprintf("%x", sha256.Sum256([]byte("facts\n"))) {
		t.Fatal(k, err)
	}
	kf = k.Path // rehome's own copy, the one a bundle carries
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Sales helper", Instructions: "Answer about sales.",
		Knowledge: []assistant.KnowledgeFile{k}})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	for _, format := range []string{"modelfile", "openwebui"} {
		opts := assistant.ExportOptions{Model: "qwen2.5:7b"}
		text, err := c.Export(ExportRequest{ID: a.ID, Format: format, Options: opts})
		if err != nil || text.Content == "" {
			t.Fatalf("%s: %v", format, err)
		}
		path := filepath.Join(out, format)
		file, err := c.Export(ExportRequest{ID: a.ID, Format: format, Options: opts, Path: path})
		data, _ := os.ReadFile(path)
		if err != nil || string(data) != text.Content || file.Bytes != int64(len(data)) {
			t.Fatalf("%s written: %v, %d bytes, same text: %v", format, err, file.Bytes, string(data) == text.Content)
		}
	}
	bundle := filepath.Join(out, "b.tar.gz")
	if x, err := c.Export(ExportRequest{ID: a.ID, Format: "bundle", Path: bundle}); err != nil || x.Bytes == 0 {
		t.Fatalf("bundle: %+v %v", x, err)
	}
	os.Remove(kf) // the knowledge file is gone: the bundle cannot be made
	failed := filepath.Join(out, "failed.tar.gz")
	if _, err := c.Export(ExportRequest{ID: a.ID, Format: "bundle", Path: failed}); err == nil {
		t.Fatal("a bundle without its knowledge file was written")
	}
	left, _ := filepath.Glob(filepath.Join(out, "*"))
	for _, p := range left {
		if b := filepath.Base(p); b != "modelfile" && b != "openwebui" && b != "b.tar.gz" {
			t.Errorf("left behind: %s", b)
		}
	}
	if _, err := c.Export(ExportRequest{ID: a.ID, Format: "bundle"}); err == nil {
		t.Fatal("a bundle with nowhere to go")
	}
}
