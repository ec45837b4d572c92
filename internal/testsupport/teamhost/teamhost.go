package teamhost

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/containers/podman/v4/pkg/bindings"
	"github.com/containers/podman/v4/pkg/bindings/images"

	recipe "rehome/sandbox/recipe"
)

// The two team-host users tests may ask for.
const (
	User  = "rehome-team"
	User2 = "rehome-team2"
)

// subIDCount is the size of each user's subordinate id range.
const subIDCount = 65536

// preferredSubIDs are where each user's range starts when useradd gave it
// none (Debian's useradd gives the next free range itself): clear of the
// ranges other tests of rehome give their users (100000-565535) and of the
// rootful sandbox's per-run ranges ([2^30, 2^31)); moved past any entry it
// would overlap.
var preferredSubIDs = map[string]int{User: 600000, User2: 700000}

// Host is one team-host account and its rootless Podman service.
type Host struct {
	// User is the account's name; UID and GID its ids.
	User     string
	UID, GID int
	// Home is the account's home folder.
	Home string
	// RuntimeDir is /run/user/UID (0700, the user's).
	RuntimeDir string
	// Socket is the service's unix socket, URI the same as Podman names
	// it (unix:///run/user/UID/podman/podman.sock).
	Socket, URI string
}

// Ensure makes the account name (User or User2) and its service ready and
// returns it; it skips or fails t when this machine cannot.
func Ensure(t testing.TB, name string) *Host {
	t.Helper()
	if _, ok := preferredSubIDs[name]; !ok {
		t.Fatalf("teamhost: unknown user %q (use teamhost.User or teamhost.User2)", name)
	}
	if reason := missing(); reason != "" {
		if os.Getenv("REHOME_REQUIRE_PODMAN") == "1" {
			t.Fatalf("a team host cannot be set up here: %s", reason)
		}
		t.Skipf("a team host cannot be set up here: %s; set REHOME_REQUIRE_PODMAN=1 to make this a failure", reason)
	}
	unlock, err := lock(name)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	h, err := ensureUser(name)
	if err != nil {
		t.Fatalf("teamhost: %v", err)
	}
	if err := h.ensureService(); err != nil {
		t.Fatalf("teamhost: %v", err)
	}
	if err := h.cannotReadCallersFiles(t); err != nil {
		t.Fatalf("teamhost: %v", err)
	}
	return h
}

// missing says what this machine lacks to play a team host ("": nothing).
func missing() string {
	if os.Geteuid() != 0 {
		return "making the team-host users needs root"
	}
	for _, tool := range []string{"podman", "runuser", "useradd", "usermod", "newuidmap", "newgidmap"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Sprintf("%s is not installed (apt-get install podman uidmap passwd util-linux)", tool)
		}
	}
	return ""
}

// lock serialises Ensure for one user across test processes (packages'
// tests run in parallel).
func lock(name string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "rehome-teamhost-"+name+".lock"), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("teamhost: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("teamhost: lock: %w", err)
	}
	return func() { f.Close() }, nil
}

// ensureUser makes the account (with a home and subordinate ids) and its
// runtime folder, and its Podman settings.
func ensureUser(name string) (*Host, error) {
	if _, err := user.Lookup(name); err != nil {
		if out, err := exec.Command("useradd", "--create-home", "--shell", "/bin/sh", name).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("useradd %s: %v %s", name, err, out)
		}
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, err
	}
	h := &Host{User: name, Home: u.HomeDir}
	h.UID, _ = strconv.Atoi(u.Uid)
	h.GID, _ = strconv.Atoi(u.Gid)
	if err := ensureSubIDs(name); err != nil {
		return nil, err
	}
	h.RuntimeDir = fmt.Sprintf("/run/user/%d", h.UID)
	h.Socket = filepath.Join(h.RuntimeDir, "podman", "podman.sock")
	h.URI = "unix://" + h.Socket
	for _, d := range []string{"/run/user", h.RuntimeDir, filepath.Dir(h.Socket)} {
		mode, owner := os.FileMode(0o700), h.UID
		if d == "/run/user" {
			mode, owner = 0o755, 0
		}
		if err := os.Mkdir(d, mode); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if err := os.Chmod(d, mode); err != nil {
			return nil, err
		}
		if err := os.Chown(d, owner, owner); err != nil {
			return nil, err
		}
		if d != "/run/user" {
			os.Chown(d, h.UID, h.GID)
		}
	}
	return h, h.writeSettings()
}

// writeSettings gives the user's Podman the explicit settings this kind
// of host needs: native overlay storage (kernel 5.13+; Podman 4.3 would
// otherwise pick vfs and copy the image for every container), runc (crun
// cannot run rehome's sandboxes on a cgroup v1 hybrid host), cgroupfs and
// file events (no systemd user session under runuser).
func (h *Host) writeSettings() error {
	dir := filepath.Join(h.Home, ".config", "containers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"storage.conf":    "[storage]\ndriver = \"overlay\"\n",
		"containers.conf": "[engine]\nruntime = \"runc\"\ncgroup_manager = \"cgroupfs\"\nevents_logger = \"file\"\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if old, err := os.ReadFile(p); err == nil && string(old) == content {
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	for _, d := range []string{filepath.Join(h.Home, ".config"), dir, filepath.Join(dir, "storage.conf"), filepath.Join(dir, "containers.conf")} {
		if err := os.Chown(d, h.UID, h.GID); err != nil {
			return err
		}
	}
	return nil
}

// ensureSubIDs gives name a subordinate uid and gid range that overlaps
// no other entry of /etc/subuid and /etc/subgid.
func ensureSubIDs(name string) error {
	var ranges [][2]int
	has := 0
	for _, file := range []string{"/etc/subuid", "/etc/subgid"} {
		entries, err := readSubIDs(file)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.name == name {
				has++
				continue
			}
			ranges = append(ranges, [2]int{e.start, e.start + e.count})
		}
	}
	if has >= 2 {
		return nil
	}
	start := preferredSubIDs[name]
	for moved := true; moved; {
		moved = false
		for _, r := range ranges {
			if start < r[1] && r[0] < start+subIDCount {
				start, moved = r[1], true
			}
		}
	}
	span := fmt.Sprintf("%d-%d", start, start+subIDCount-1)
	if out, err := exec.Command("usermod", "--add-subuids", span, "--add-subgids", span, name).CombinedOutput(); err != nil {
		return fmt.Errorf("usermod --add-subuids %s %s: %v %s", span, name, err, out)
	}
	return nil
}

type subID struct {
	name         string
	start, count int
}

func readSubIDs(file string) ([]subID, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []subID
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Split(strings.TrimSpace(sc.Text()), ":")
		if len(f) != 3 {
			continue
		}
		s, err1 := strconv.Atoi(f[1])
		n, err2 := strconv.Atoi(f[2])
		if err1 == nil && err2 == nil {
			out = append(out, subID{f[0], s, n})
		}
	}
	return out, sc.Err()
}

// env is the account's whole environment for commands run as it.
func (h *Host) env() []string {
	return []string{"HOME=" + h.Home, "USER=" + h.User, "LOGNAME=" + h.User, "LANG=C.UTF-8",
		"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "XDG_RUNTIME_DIR=" + h.RuntimeDir}
}

// Command returns a command that runs argv as the account, with its own
// environment only, in its home.
func (h *Host) Command(argv ...string) *exec.Cmd {
	cmd := exec.Command("runuser", append(append([]string{"-u", h.User, "--", "env", "-i"}, h.env()...), argv...)...)
	cmd.Dir = h.Home
	return cmd
}

// ensureService pings the account's service, starting it when nothing
// answers on its socket.
func (h *Host) ensureService() error {
	if h.ping() == nil {
		return nil
	}
	os.Remove(h.Socket) // a service that died
	logPath := filepath.Join(h.RuntimeDir, "podman", "service.log")
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	os.Chown(logPath, h.UID, h.GID)
	cmd := h.Command("podman", "--runtime", "runc", "--cgroup-manager", "cgroupfs", "--events-backend", "file",
		"--storage-driver", "overlay", "system", "service", "--time=0", h.URI)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own session: it outlives this test process for the next one.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	logf.Close()
	if err != nil {
		return fmt.Errorf("start %s's Podman service: %w", h.User, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-done:
			log, _ := os.ReadFile(logPath)
			return fmt.Errorf("%s's Podman service exited at once (%v): %s", h.User, err, bytes.TrimSpace(log))
		case <-time.After(100 * time.Millisecond):
		}
		if h.ping() == nil {
			return nil
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logPath)
			return fmt.Errorf("%s's Podman service did not answer within 60 s: %s", h.User, bytes.TrimSpace(log))
		}
	}
}

// ping asks the service for its version through its socket.
func (h *Host) ping() error {
	c, err := net.DialTimeout("unix", h.Socket, 2*time.Second)
	if err != nil {
		return err
	}
	c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, err = bindings.NewConnection(ctx, h.URI)
	return err
}

// Connect returns the bindings' connection context for the account's
// service.
func (h *Host) Connect(ctx context.Context) (context.Context, error) {
	return bindings.NewConnection(ctx, h.URI)
}

// Stop ends the account's service (tests that must see a fresh start).
func (h *Host) Stop() {
	out, _ := exec.Command("pgrep", "-u", strconv.Itoa(h.UID), "-f", "system service --time=0 "+h.URI).Output()
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil {
			syscall.Kill(pid, syscall.SIGTERM)
		}
	}
}

// CanRead reports whether the account can read path (open it and read a
// byte).
func (h *Host) CanRead(path string) bool {
	return h.Command("head", "-c", "1", path).Run() == nil
}

// cannotReadCallersFiles checks the premise every test against a team
// host rests on: the account cannot read a file of the caller's in a
// temporary folder of its.
func (h *Host) cannotReadCallersFiles(t testing.TB) error {
	p := filepath.Join(t.TempDir(), "private.csv")
	if err := os.WriteFile(p, []byte("a,b\n1,2\n"), 0o600); err != nil {
		return err
	}
	if h.CanRead(p) {
		return fmt.Errorf("%s can read %s (mode 0600 in the caller's temporary folder): the team host would see the caller's files, and tests against it would prove nothing", h.User, p)
	}
	return nil
}

// LoadImage loads the image archive (gzip-compressed or plain
// docker-archive) into the account's storage through its service (the
// REST load: the service reads it from the connection, never from a path)
// unless ref is there already.
func (h *Host) LoadImage(t testing.TB, archive, ref string) {
	t.Helper()
	unlock, err := lock(h.User)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, err := h.Connect(context.Background())
	if err != nil {
		t.Fatalf("teamhost: connect to %s: %v", h.URI, err)
	}
	if ok, err := images.Exists(ctx, ref, nil); err != nil {
		t.Fatalf("teamhost: look for %s on %s: %v", ref, h.User, err)
	} else if ok {
		return
	}
	f, err := os.Open(archive)
	if err != nil {
		t.Fatalf("teamhost: the sandbox image archive: %v (build it with `make image`)", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	}
	start := time.Now()
	if _, err := images.Load(ctx, r); err != nil {
		t.Fatalf("teamhost: load %s into %s's storage: %v", archive, h.User, err)
	}
	if ok, _ := images.Exists(ctx, ref, nil); !ok {
		t.Fatalf("teamhost: %s loaded into %s's storage, but %s is not there", archive, h.User, ref)
	}
	t.Logf("teamhost: %s loaded into %s's storage in %s", ref, h.User, time.Since(start).Round(100*time.Millisecond))
}

// SandboxImage returns the reference of this rehome's sandbox image and
// the archive of it that `make image` leaves in /var/cache/rehome.
func SandboxImage() (ref, archive string) {
	return "localhost/rehome-sandbox:" + recipe.Tag(), filepath.Join("/var/cache/rehome", "rehome-sandbox-"+recipe.Tag()+".tar.gz")
}

// EnsureSandboxImage loads this rehome's sandbox image into the account's
// storage through its service, once (LoadImage).
func (h *Host) EnsureSandboxImage(t testing.TB) string {
	t.Helper()
	ref, archive := SandboxImage()
	h.LoadImage(t, archive, ref)
	return ref
}
