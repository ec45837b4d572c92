package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"rehome/internal/testsupport/rehomebin"
	"strings"
	"testing"
	"time"
)

// workstationUser is the normal user the workstation test makes: its own
// rootless Podman storage, subordinate ids, no root.
const workstationUser = "rehome-workstation"

// TestWorkstationUser is the workstation case, as a normal user with
// subordinate ids and nothing in its own (rootless, per user) image
// storage: `rehome run` finds the archive a root build left in
// /var/cache/rehome (readable by everyone) and loads it by itself, and
// `rehome sandbox image build` builds the image in mmdebstrap's unshare
// mode. Each step runs the rehome binary as that user, with a fresh image
// storage of its own.
func TestWorkstationUser(t *testing.T) {
	if os.Getenv("REHOME_ROOTLESS_CHILD") != "" {
		t.Skip("this is the rootless child")
	}
	if os.Geteuid() != 0 {
		t.Skip("making a test user needs root")
	}
	e := testEngine(t)
	for _, tool := range []string{"runuser", "useradd", "usermod", "newuidmap", "mmdebstrap"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the workstation test needs %s (apt-get install uidmap passwd mmdebstrap): %v", tool, err)
		}
	}
	ctx := context.Background()

	// The shared archive, as `make sandbox-image` leaves it.
	shared := filepath.Join(sharedArchiveDirs[0], ArchiveName())
	if _, err := os.Stat(shared); err != nil {
		if err := e.SaveImage(ctx, shared); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(sharedArchiveDirs[0], 0o755)

	home := "/home/" + workstationUser
	if err := exec.Command("id", workstationUser).Run(); err != nil {
		if out, err := exec.Command("useradd", "--create-home", "--shell", "/bin/sh", workstationUser).CombinedOutput(); err != nil {
			t.Fatalf("useradd: %v %s", err, out)
		}
	}
	if subs, _ := os.ReadFile("/etc/subuid"); !bytes.Contains(subs, []byte(workstationUser+":")) {
		if out, err := exec.Command("usermod", "--add-subuids", "400000-465535", "--add-subgids", "400000-465535", workstationUser).CombinedOutput(); err != nil {
			t.Fatalf("usermod: %v %s", err, out)
		}
	}

	// A fresh image storage for this run (rootless overlay), so the image
	// is really missing at the start.
	dir, err := os.MkdirTemp("", "rehome-workstation-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	defer os.RemoveAll(dir)
	storage := filepath.Join(home, "rehome-test-storage-"+filepath.Base(dir))
	defer os.RemoveAll(storage)
	conf := filepath.Join(home, ".config", "containers")
	os.MkdirAll(conf, 0o755)
	os.WriteFile(filepath.Join(conf, "storage.conf"), []byte(fmt.Sprintf("[storage]\ndriver = \"overlay\"\ngraphroot = %q\nrunroot = %q\n",
		filepath.Join(storage, "graph"), filepath.Join(storage, "run"))), 0o644)
	for _, p := range []string{filepath.Join(home, ".config"), home} {
		exec.Command("chown", "-R", workstationUser+":", p).Run()
	}
	defer os.Remove(filepath.Join(conf, "storage.conf"))

	bin := os.Getenv("REHOME_BIN")
	if bin == "" {
		bin = filepath.Join(dir, "rehome")
		if err := rehomebin.Build(bin); err != nil {
			t.Fatal(err)
		}
	} else {
		data, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(dir, "rehome")
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	asUser := func(env []string, args ...string) (string, error) {
		cmd := exec.Command("runuser", append([]string{"-u", workstationUser, "--", "env", "-i",
			"HOME=" + home, "USER=" + workstationUser, "LANG=C.UTF-8",
			"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
			// rehome's own Podman storage (storage.go), fresh for this run.
			"REHOME_PODMAN_STORAGE=" + filepath.Join(storage, "rehome"),
			"REHOME_HOME=" + filepath.Join(dir, "data")}, append(env, args...)...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	exec.Command("chown", workstationUser+":", filepath.Join(dir, "data")).Run()
	script := filepath.Join(dir, "answer.py")
	os.WriteFile(script, []byte("import os\nprint('answer', 6 * 7, os.getuid())\n"), 0o644)

	// 1. `rehome run` with an empty storage and an empty cache of its own
	// loads the shared archive by itself.
	userCache := filepath.Join(dir, "cache")
	os.MkdirAll(userCache, 0o755)
	exec.Command("chown", workstationUser+":", userCache).Run()
	start := time.Now()
	// (an image that loads on first use is ready: exit 0, as doctor says)
	out, _ := asUser([]string{"REHOME_CACHE=" + userCache}, bin, "sandbox", "image", "status", "--json")
	t.Logf("image status as %s:\n%s", workstationUser, out)
	var st ImageStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Present || !st.ArchivePresent || st.Archive != shared || st.State != imageLoadsOnFirstUse {
		t.Fatalf("the image status should show the image missing and the shared archive %s found: %v", shared, err)
	}
	out, err = asUser([]string{"REHOME_CACHE=" + userCache}, bin, "run", "--json", script)
	t.Logf("rehome run as %s (%s):\n%s", workstationUser, time.Since(start).Round(100*time.Millisecond), out)
	if err != nil || !strings.Contains(out, "answer 42 10001") {
		t.Fatalf("rehome run as a normal user with only the shared archive: %v", err)
	}

	// 2. `rehome sandbox image build` as that user: with the image present
	// (loaded above) it says so; --force builds it in mmdebstrap's unshare
	// mode. Its apt cache is the user's own, so a rerun downloads nothing.
	out, err = asUser(nil, bin, "sandbox", "image", "build", "--quiet")
	if err != nil || !strings.Contains(out, "already built") {
		t.Fatalf("sandbox image build with the image present: %v\n%s", err, out)
	}
	if testing.Short() {
		t.Log("-short: not building the image as the user")
		return
	}
	start = time.Now()
	out, err = asUser(nil, bin, "sandbox", "image", "build", "--force", "--quiet")
	t.Logf("sandbox image build --force as %s (%s):\n%s", workstationUser, time.Since(start).Round(time.Second), out)
	if err != nil || !strings.Contains(out, "built "+ImageRef()) {
		t.Fatalf("building the image as a normal user (mmdebstrap unshare mode) failed: %v", err)
	}
	out, err = asUser(nil, bin, "run", script)
	if err != nil || !strings.Contains(out, "answer 42 10001") {
		t.Fatalf("rehome run on the image the user built: %v\n%s", err, out)
	}
}
