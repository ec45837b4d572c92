package core

import (
	"archive/tar"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLoadImageProgress: an image archive loads through the core with its
// steps in words and its bytes counted to the end — what the window's
// first run and `rehome sandbox image load` both show.
func TestLoadImageProgress(t *testing.T) {
	if _, err := exec.LookPath("podman"); err != nil {
		if os.Getenv("REHOME_REQUIRE_PODMAN") == "1" {
			t.Fatal("podman is missing")
		}
		t.Skip("podman is missing; set REHOME_REQUIRE_PODMAN=1 to make this a failure")
	}
	// A tiny image of one file, saved as `podman save` writes it.
	var root bytes.Buffer
	tw := tar.NewWriter(&root)
	tw.WriteHeader(&tar.Header{Name: "hello.txt", Mode: 0o644, Size: 5})
	tw.Write([]byte("hello"))
	tw.Close()
	name := fmt.Sprintf("localhost/rehome-core-test-tiny:%d", os.Getpid())
	imp := exec.Command("podman", "import", "-", name)
	imp.Stdin = &root
	if out, err := imp.CombinedOutput(); err != nil {
		t.Fatalf("podman import: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("podman", "rmi", "-f", name).Run() })
	archive := filepath.Join(t.TempDir(), "tiny.tar")
	if out, err := exec.Command("podman", "save", "-o", archive, name).CombinedOutput(); err != nil {
		t.Fatalf("podman save: %v %s", err, out)
	}
	exec.Command("podman", "rmi", "-f", name).Run()

	c := New(t.TempDir(), Options{})
	defer c.Close()
	var steps []ImageLoad
	names, err := c.LoadImage(t.Context(), archive, func(p ImageLoad) { steps = append(steps, p) })
	if len(names) == 0 || names[0] != name {
		t.Fatalf("loaded %v (%v), want %s", names, err, name)
	}
	// The archive holds another image than rehome's: said in words when
	// rehome's own image is not there either.
	if err != nil {
		t.Logf("as expected without rehome's image: %v", err)
	}
	st, _ := os.Stat(archive)
	if len(steps) == 0 {
		t.Fatal("no progress")
	}
	last := steps[len(steps)-1]
	if last.Stage != "load" || last.Total != st.Size() || last.Done != last.Total || last.Message == "" {
		t.Fatalf("last step %+v, want all %d bytes of the load, in words", last, st.Size())
	}
}
