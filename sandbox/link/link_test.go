package link

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// needPodman skips a test that starts a Podman service where podman is not
// installed, or fails it with REHOME_REQUIRE_PODMAN=1.
func needPodman(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("podman"); err != nil {
		if os.Getenv("REHOME_REQUIRE_PODMAN") == "1" {
			t.Fatalf("real-Podman test cannot run: %v", err)
		}
		t.Skipf("no podman here (%v); set REHOME_REQUIRE_PODMAN=1 to make this a failure", err)
	}
}

// A service on another machine (ssh://, tcp://) cannot see this machine's
// files.
func TestFilesTravelRemote(t *testing.T) {
	for _, uri := range []string{"ssh://alice@gpu-box/run/user/1000/podman/podman.sock", "tcp://gpu-box:8080"} {
		if !filesTravel(uri) {
			t.Errorf("%s is taken for a local service", uri)
		}
	}
}

// A service started with Linger outlives its Close and is found, not
// started again, by the next Open: the CLI pays a service start once,
// not on every command. It is a private folder of this user's.
func TestLingeringService(t *testing.T) {
	needPodman(t)
	if _, err := exec.LookPath("runc"); err != nil {
		t.Skip("runc is not installed")
	}
	ctx := context.Background()
	// A folder of the test's own, so that no other test's service is touched.
	opts := ConnectOptions{ForceStart: true, Runtime: "runc", Linger: 30 * time.Second, LingerBase: filepath.Join(t.TempDir(), "rehome")}
	c1, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exec.Command("pkill", "-f", "system service --time=[0-9]+ "+c1.URI).Run() })
	dir, ok := lingerDir(opts.LingerBase, "runc")
	if !ok || c1.URI != "unix://"+filepath.Join(dir, "podman.sock") || !c1.Started || c1.Runtime != "runc" {
		t.Fatalf("not the lingering service: %+v (dir %q)", c1, dir)
	}
	if err := CheckPrivate(dir); err != nil {
		t.Fatalf("its folder is not private: %v", err)
	}
	c1.Close()
	start := time.Now()
	c2, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if c2.URI != c1.URI {
		t.Fatalf("a second service: %s, then %s", c1.URI, c2.URI)
	}
	if _, err := dial(ctx, c2.URI); err != nil {
		t.Fatalf("the service did not outlive Close: %v", err)
	}
	t.Logf("reconnected in %v", time.Since(start))
	out, _ := exec.Command("pgrep", "-fc", "system service --time=[0-9]+ "+c1.URI).Output()
	if strings.TrimSpace(string(out)) != "1" {
		t.Fatalf("%s services on the socket, want 1", strings.TrimSpace(string(out)))
	}

	// A stale socket (the service idled out) is replaced by a new service.
	exec.Command("pkill", "-f", "system service --time=[0-9]+ "+c1.URI).Run()
	time.Sleep(300 * time.Millisecond)
	c3, err := Open(ctx, opts)
	if err != nil {
		t.Fatalf("after the service ended: %v", err)
	}
	defer c3.Close()
	if _, err := dial(ctx, c3.URI); err != nil {
		t.Fatalf("no new service: %v", err)
	}
}

// The lingering service's folder is used only when it is a private folder
// of this user's that no one else can plant or rename.
func TestLingerDirIsPrivate(t *testing.T) {
	base := filepath.Join(t.TempDir(), "rehome")
	dir, err := privateDirIn(base, "podman-runc")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{base, dir} {
		if st, err := os.Lstat(d); err != nil || st.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v", d, st.Mode(), err)
		}
	}
	// Opened up to others: refused.
	os.Chmod(dir, 0o755)
	if _, err := privateDirIn(base, "podman-runc"); err == nil {
		t.Fatal("a folder others can read was used")
	}
	// A link planted in its place: refused.
	os.RemoveAll(dir)
	os.Symlink(t.TempDir(), dir)
	if _, err := privateDirIn(base, "podman-runc"); err == nil {
		t.Fatal("a link was followed")
	}
	// Another user's folder (as root: give it away): refused.
	if os.Geteuid() == 0 {
		other := filepath.Join(base, "podman-crun")
		os.Mkdir(other, 0o700)
		os.Chown(other, 65534, 65534)
		if _, err := privateDirIn(base, "podman-crun"); err == nil {
			t.Fatal("another user's folder was used")
		}
	}
}

// The flags that give a service rehome starts its own storage: graph
// root, run root and libpod's temporary folder all its own, and the
// driver only when one is asked for.
func TestPrivateStorageArgs(t *testing.T) {
	s := PrivateStorage{GraphRoot: "/h/.local/share/rehome/podman", RunRoot: "/run/user/7/rehome/storage-run", TmpDir: "/run/user/7/rehome/storage-tmp", Driver: "overlay"}
	want := "--root /h/.local/share/rehome/podman --runroot /run/user/7/rehome/storage-run --tmpdir /run/user/7/rehome/storage-tmp --storage-driver overlay"
	if got := strings.Join(s.args(), " "); got != want {
		t.Errorf("args = %q, want %q", got, want)
	}
	s.Driver = ""
	if got := strings.Join(s.args(), " "); strings.Contains(got, "--storage-driver") {
		t.Errorf("no driver asked for, but %q", got)
	}
	if (PrivateStorage{}).args() != nil {
		t.Error("root's storage got flags")
	}
	if os.Geteuid() == 0 {
		if ps, err := privateStorage(ConnectOptions{}); err != nil || ps.GraphRoot != "" {
			t.Errorf("root's service got a storage of its own: %+v %v", ps, err)
		}
	}
	t.Setenv("REHOME_PODMAN_STORAGE", "/x/y")
	if storageRoot() != "/x/y" {
		t.Error("REHOME_PODMAN_STORAGE ignored")
	}
}
