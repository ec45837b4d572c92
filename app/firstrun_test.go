package app

import (
	"os"
	"strings"
	"testing"
	"time"

	"rehome/sandbox"
	"rehome/sandbox/link"
)

// The checklist against the real Podman of this machine: every item is
// there with a state, Podman and the image (present after make
// sandbox-image) are ok, the self-test is to do until it runs, and putting
// the checklist off is remembered.
func TestFirstRunChecklist(t *testing.T) {
	if _, err := sandbox.New(t.Context(), sandbox.Options{Connect: link.ConnectOptions{NoStart: true}}); err != nil && os.Getenv("REHOME_REQUIRE_PODMAN") == "" {
		t.Skipf("skipped: no Podman service answers (%v); set REHOME_REQUIRE_PODMAN=1 to fail instead", err)
	}
	dir := t.TempDir()
	t.Setenv("REHOME_PACKAGED_IMAGE_DIR", t.TempDir()) // no shipped archive
	a := New(Config{DataDir: dir})
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	fr, err := a.FirstRunStatus()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]FirstRunItem{}
	for _, it := range fr.Items {
		byID[it.ID] = it
		if it.Title == "" || it.Detail == "" {
			t.Errorf("item %s lacks words: %+v", it.ID, it)
		}
	}
	for _, id := range []string{"podman", "rootless", "storage", "image", "selftest"} {
		if _, ok := byID[id]; !ok {
			t.Errorf("no %s item in %+v", id, fr.Items)
		}
	}
	if byID["podman"].State != "ok" || !strings.Contains(byID["podman"].Detail, "Podman ") {
		t.Errorf("podman: %+v", byID["podman"])
	}
	// As root the item says so in its title, not "Rootless Podman is
	// ready" above "rehome runs as root".
	if os.Geteuid() == 0 && (byID["rootless"].Title != "Podman runs as root" || strings.Contains(byID["rootless"].Title, "Rootless")) {
		t.Errorf("as root: %+v", byID["rootless"])
	}
	if os.Geteuid() == 0 && byID["rootless"].State != "ok" {
		t.Errorf("as root the rootless item is moot: %+v", byID["rootless"])
	}
	if s := byID["storage"].State; s != "ok" && s != "warn" {
		t.Errorf("storage: %+v", byID["storage"])
	}
	if os.Getenv("REHOME_REQUIRE_PODMAN") != "" && byID["image"].State != "ok" {
		t.Errorf("image (built by make sandbox-image): %+v", byID["image"])
	}
	if it := byID["selftest"]; it.State != "todo" || it.Fix == "" || it.Command != "rehome sandbox doctor" {
		t.Errorf("selftest before it ran: %+v", it)
	}
	if fr.Complete {
		t.Errorf("complete before the self-test ran: %+v", fr)
	}
	// Opened at start only when something failed or is under way (a
	// self-test not yet run does not interrupt anyone).
	attention := false
	for _, it := range fr.Items {
		attention = attention || it.State == "fail" || it.State == "working"
	}
	if fr.Show != attention {
		t.Errorf("show=%v with items %+v", fr.Show, fr.Items)
	}
	if err := a.DismissFirstRun(); err != nil {
		t.Fatal(err)
	}
	if fr, _ := a.FirstRunStatus(); fr.Show {
		t.Error("still shown after it was put off")
	}
	if _, err := a.FirstRunFix("no-such-item"); err == nil {
		t.Error("an unknown fix was accepted")
	}
}

// The self-test's Fix runs it in the background and records the result
// for this image; the item then says so.
func TestFirstRunSelfTest(t *testing.T) {
	if testing.Short() || os.Getenv("REHOME_REQUIRE_PODMAN") == "" {
		t.Skip("skipped: runs the sandbox self-test (about 10 s); set REHOME_REQUIRE_PODMAN=1")
	}
	a := New(Config{DataDir: t.TempDir()})
	if err := a.Open(); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	fr, err := a.FirstRunFix("selftest")
	if err != nil {
		t.Fatal(err)
	}
	working := false
	for _, it := range fr.Items {
		working = working || (it.ID == "selftest" && it.State == "working")
	}
	if !working {
		t.Errorf("the self-test is not shown as working: %+v", fr.Items)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		fr, _ = a.FirstRunStatus()
		for _, it := range fr.Items {
			if it.ID == "selftest" && it.State != "working" {
				if it.State != "ok" {
					t.Fatalf("self-test: %+v", it)
				}
				return
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatal("the self-test did not finish in 3 minutes")
}
