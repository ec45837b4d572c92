package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"rehome/internal/testsupport/rehomebin"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rehome/sandbox/link"
)

// freshStorageUser is the normal user TestOwnStorageFreshUser makes, and
// removes, on every run: nothing of an earlier run is left to help it.
const freshStorageUser = "rehome-fresh-store"

// TestOwnStorageFreshUser is the workstation user whose own Podman picked
// vfs (every container a copy of the whole image): rehome's private
// Podman service keeps its own storage (graph root under
// ~/.local/share/rehome/podman, native overlay on 5.13+), loads the image
// there from the shared archive, and leaves the user's storage as it was —
// no reset, no image in it. And when rehome exits, the private service it
// started is gone (the one that first set up the user's Podman used to
// outlive it, parent PID 1, for ever), unless it lingers by design for the
// next command (a login session's runtime folder), with an idle timeout.
func TestOwnStorageFreshUser(t *testing.T) {
	if os.Getenv("REHOME_ROOTLESS_CHILD") != "" {
		t.Skip("this is the rootless child")
	}
	if os.Geteuid() != 0 {
		t.Skip("making a test user needs root")
	}
	if !link.OverlaySupported() {
		t.Skipf("kernel %s: rootless native overlay needs 5.13", link.KernelRelease())
	}
	e := testEngine(t)
	for _, tool := range []string{"runuser", "useradd", "userdel", "usermod", "newuidmap"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("this test needs %s (apt-get install uidmap passwd): %v", tool, err)
		}
	}
	shared := filepath.Join(sharedArchiveDirs[0], ArchiveName())
	if _, err := os.Stat(shared); err != nil {
		if err := e.SaveImage(t.Context(), shared); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(sharedArchiveDirs[0], 0o755)

	u := freshStorageUser
	removeUser := func() {
		killUserProcesses(u)
		exec.Command("userdel", "-r", u).Run()
	}
	removeUser()
	t.Cleanup(removeUser)
	if out, err := exec.Command("useradd", "--create-home", "--shell", "/bin/sh", u).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v %s", err, out)
	}
	if out, err := exec.Command("usermod", "--add-subuids", "500000-565535", "--add-subgids", "500000-565535", u).CombinedOutput(); err != nil {
		t.Fatalf("usermod: %v %s", err, out)
	}
	home := "/home/" + u
	uid := userID(t, u)
	t.Cleanup(func() { os.RemoveAll(fmt.Sprintf("/tmp/rehome-%d", uid)) })
	// The user's own Podman: vfs, as Podman 4.3 picks with no usable
	// fuse-overlayfs.
	confDir := filepath.Join(home, ".config", "containers")
	os.MkdirAll(confDir, 0o755)
	userConf := "[storage]\ndriver = \"vfs\"\n"
	os.WriteFile(filepath.Join(confDir, "storage.conf"), []byte(userConf), 0o644)
	bin := rehomebin.Binary(t)
	userBin := filepath.Join(home, "rehome")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(userBin, data, 0o755)
	os.WriteFile(filepath.Join(home, "answer.py"), []byte("import os\nprint('answer', 6 * 7, os.getuid())\n"), 0o644)
	exec.Command("chown", "-R", u+":", home).Run()

	asUser := func(xdg bool, args ...string) (string, time.Duration, error) {
		env := []string{"HOME=" + home, "USER=" + u, "LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"}
		if xdg {
			env = append(env, fmt.Sprintf("XDG_RUNTIME_DIR=/run/user/%d", uid))
		}
		cmd := exec.Command("runuser", append(append([]string{"-u", u, "--", "env", "-i"}, env...), args...)...)
		cmd.Dir = home
		start := time.Now()
		out, err := cmd.CombinedOutput()
		return string(out), time.Since(start), err
	}
	services := func() []string {
		var out []string
		for _, p := range userProcesses(u) {
			if strings.Contains(p.args, "system service") {
				out = append(out, fmt.Sprintf("%d (parent %d): %s", p.pid, p.ppid, p.args))
			}
		}
		return out
	}

	// 0. Before the first run the image is in no storage of the user's,
	// and the shared archive loads on first use: `sandbox image status`
	// and `doctor` give the one verdict (status used to exit 1 "missing"
	// while doctor said ok).
	out, _, err := asUser(false, userBin, "sandbox", "image", "status")
	t.Logf("image status before the first run:\n%s", out)
	if err != nil || !strings.Contains(out, "loads on first use from "+shared) {
		t.Errorf("image status before the first run: %v (want exit 0, %q)", err, "loads on first use")
	}
	out, _, _ = asUser(false, userBin, "doctor")
	if !strings.Contains(out, ImageRef()+": loads on first use from "+shared) {
		t.Errorf("doctor does not say what image status says:\n%s", out)
	}
	if left := services(); len(left) > 0 {
		t.Fatalf("after rehome exited, its Podman service is still running:\n%s", strings.Join(left, "\n"))
	}

	// 1. No runtime folder (an ssh or runuser session): each command
	// starts a private service and stops it when it ends — the first
	// included, which sets up the user's Podman (and probes the runtimes).
	for i := 1; i <= 2; i++ {
		out, took, err := asUser(false, userBin, "run", "answer.py")
		t.Logf("run %d without a runtime folder: %s", i, took.Round(10*time.Millisecond))
		if err != nil || !strings.Contains(out, "answer 42 10001") {
			t.Fatalf("rehome run as a fresh user: %v\n%s", err, out)
		}
		if left := services(); len(left) > 0 {
			t.Fatalf("after rehome exited, its Podman service is still running:\n%s", strings.Join(left, "\n"))
		}
	}

	// 2. A login session (XDG_RUNTIME_DIR): the service lingers for the
	// next command and ends by itself when idle.
	rt := fmt.Sprintf("/run/user/%d", uid)
	os.MkdirAll(rt, 0o700)
	os.Chown(rt, uid, uid)
	defer os.RemoveAll(rt)
	for i := 1; i <= 2; i++ {
		out, took, err := asUser(true, userBin, "run", "answer.py")
		t.Logf("run %d in a login session: %s", i, took.Round(10*time.Millisecond))
		if err != nil || !strings.Contains(out, "answer 42 10001") {
			t.Fatalf("rehome run in a login session: %v\n%s", err, out)
		}
	}
	left := services()
	if len(left) == 0 {
		t.Fatal("no lingering service in a login session: every command would pay a service start")
	}
	for _, s := range left {
		if !strings.Contains(s, "--time=600") {
			t.Errorf("a service rehome left running has no idle timeout: %s", s)
		}
		if !strings.Contains(s, "--root "+filepath.Join(home, ".local/share/rehome/podman")) || !strings.Contains(s, "--storage-driver overlay") {
			t.Errorf("a service rehome started does not keep its own overlay storage: %s", s)
		}
	}

	// 3. The user's own socket, on the user's vfs storage: rehome leaves
	// it for its own service; named with $CONTAINER_HOST it is used as it
	// is, and doctor says what that storage costs.
	sockDir := filepath.Join(rt, "podman")
	os.MkdirAll(sockDir, 0o700)
	os.Chown(sockDir, uid, uid)
	userSock := "unix://" + filepath.Join(sockDir, "podman.sock")
	svc := exec.Command("runuser", "-u", u, "--", "env", "-i", "HOME="+home, "USER="+u, "PATH=/usr/bin:/bin:/usr/sbin:/sbin",
		"XDG_RUNTIME_DIR="+rt, "podman", "--runtime", "runc", "system", "service", "--time=0", userSock)
	svc.Dir = home
	if err := svc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { svc.Process.Kill(); svc.Wait() }()
	for i := 0; i < 200; i++ {
		if _, err := os.Stat(filepath.Join(sockDir, "podman.sock")); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	out, _, err = asUser(true, userBin, "run", "answer.py")
	if err != nil || !strings.Contains(out, "answer 42 10001") {
		t.Fatalf("rehome run with the user's vfs socket listening: %v\n%s", err, out)
	}
	out, _, _ = asUser(true, userBin, "doctor")
	if strings.Contains(out, userSock) || !strings.Contains(out, "rehome's own Podman service keeps its images") {
		t.Errorf("with the user's vfs socket listening, doctor says rehome used it:\n%s", out)
	}
	out, _, _ = asUser(true, "CONTAINER_HOST="+userSock, userBin, "doctor")
	t.Logf("doctor with CONTAINER_HOST=%s:\n%s", userSock, out)
	if !strings.Contains(out, "your Podman service at "+userSock+" serves rehome and stores images with vfs") || !strings.Contains(out, "copies the whole image") {
		t.Errorf("doctor does not say the user's socket's storage and what it costs:\n%s", out)
	}

	// rehome's storage holds the image, with overlay; the user's holds
	// nothing and its configuration is as the user wrote it.
	own := filepath.Join(home, ".local", "share", "rehome", "podman")
	if _, err := os.Stat(filepath.Join(own, "overlay-images")); err != nil {
		t.Errorf("rehome's own storage has no overlay images: %v", err)
	}
	if _, err := os.Stat(filepath.Join(own, "vfs")); err == nil {
		t.Error("rehome's own storage uses vfs")
	}
	if got, _ := os.ReadFile(filepath.Join(confDir, "storage.conf")); string(got) != userConf {
		t.Errorf("the user's storage.conf changed: %q", got)
	}
	if ents, err := os.ReadDir(filepath.Join(home, ".local", "share", "containers", "storage", "vfs-images")); err == nil && len(ents) > 1 {
		t.Errorf("the user's own storage got images: %d entries", len(ents))
	}
	out, _, _ = asUser(true, userBin, "doctor")
	t.Logf("rehome doctor as %s:\n%s", u, out)
	if strings.Contains(out, "system reset") || strings.Contains(strings.ToLower(out), "switch to overlay") {
		t.Error("doctor offers to reset the user's Podman storage")
	}
	if !strings.Contains(out, own) {
		t.Errorf("doctor does not say where rehome keeps its images (%s)", own)
	}
}

type userProcess struct {
	pid, ppid int
	args      string
}

// userProcesses lists the processes of user u.
func userProcesses(u string) []userProcess {
	out, _ := exec.Command("ps", "-o", "pid=,ppid=,args=", "-u", u).Output()
	var ps []userProcess
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) < 3 {
			continue
		}
		pid, _ := strconv.Atoi(f[0])
		ppid, _ := strconv.Atoi(f[1])
		ps = append(ps, userProcess{pid, ppid, strings.Join(f[2:], " ")})
	}
	return ps
}

// killUserProcesses ends, by pid, the processes of the test's own user.
func killUserProcesses(u string) {
	for _, p := range userProcesses(u) {
		syscall.Kill(p.pid, syscall.SIGKILL)
	}
	time.Sleep(500 * time.Millisecond)
}

func userID(t *testing.T, u string) int {
	t.Helper()
	out, err := exec.Command("id", "-u", u).Output()
	if err != nil {
		t.Fatal(err)
	}
	id, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return id
}
