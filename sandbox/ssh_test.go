package sandbox

// The team host's connection, against a real sshd on 127.0.0.1
// (internal/testsupport/sshdtest) forwarding to this machine's Podman
// service: host keys (unknown, changed, a wrong fingerprint), identities
// (readable by others, a passphrase asked once), a run over the link, and
// the link killed mid-run.

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/containers/podman/v4/pkg/bindings"
	"github.com/containers/podman/v4/pkg/bindings/containers"
	"github.com/containers/storage/pkg/homedir"

	"rehome/internal/testsupport/sshdtest"
	"rehome/internal/testsupport/teamhost"

	"rehome/sandbox/link"
)

// teamHost is a sshd in front of this machine's Podman service (the test
// engine's), and an ssh folder of the test's own (never root's ~/.ssh).
type teamHost struct {
	srv    *sshdtest.Server
	uri    string
	sshDir string
	local  *Engine
}

func startTeamHost(t *testing.T, opts sshdtest.Options) *teamHost {
	t.Helper()
	local := testEngine(t)
	sock, ok := strings.CutPrefix(local.connection().URI, "unix://")
	if !ok {
		t.Fatalf("the test engine's service is not a unix socket: %s", local.connection().URI)
	}
	if opts.User == teamhost.User {
		// rehome-team's own rootless service: the tests that run code log
		// in as that account (the profile's upload runs a shell there, and
		// root's start files here can stall one for a minute), and its
		// files travel.
		e, th := teamEngine(t, teamhost.User)
		local, sock = e, th.Socket
	}
	srv := sshdtest.Start(t, opts)
	dir := filepath.Join(t.TempDir(), "ssh")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return &teamHost{srv: srv, uri: srv.URI(sock), sshDir: dir, local: local}
}

func (h *teamHost) opts() link.ConnectOptions {
	return link.ConnectOptions{URI: h.uri, Identity: h.srv.ClientKey, SSHDir: h.sshDir}
}

func (h *teamHost) knownHosts() string { return filepath.Join(h.sshDir, "known_hosts") }

func (h *teamHost) writeKnownHosts(t *testing.T, data string) []byte {
	t.Helper()
	if err := os.WriteFile(h.knownHosts(), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return []byte(data)
}

func (h *teamHost) trust(t *testing.T) {
	t.Helper()
	h.writeKnownHosts(t, h.srv.HostKeyLine+"\n")
}

func sameFile(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s changed:\nwas %q\nnow %q", path, want, got)
	}
}

// The bindings' own ssh dialing, which rehome does not use: it appends an
// unknown host's key to ~/.ssh/known_hosts without asking. This test
// documents the reason for rehome's own client (and fails if a newer
// bindings stops doing so). The dial runs in a child process whose HOME is
// a temp folder: the bindings read HOME once per process.
func TestBindingsTrustOnFirstUse(t *testing.T) {
	if uri := os.Getenv("REHOME_TOFU_URI"); uri != "" {
		if home := homedir.Get(); home != os.Getenv("HOME") || !strings.HasPrefix(home, os.TempDir()) {
			t.Fatalf("the bindings would write to %s: refusing", home)
		}
		if _, err := bindings.NewConnectionWithIdentity(context.Background(), uri, os.Getenv("REHOME_TOFU_KEY"), false); err != nil {
			t.Fatalf("the bindings' ssh dial failed: %v", err)
		}
		return
	}
	h := startTeamHost(t, sshdtest.Options{})
	home := t.TempDir()
	os.Mkdir(filepath.Join(home, ".ssh"), 0o700)
	kh := filepath.Join(home, ".ssh", "known_hosts")
	before := []byte("# nothing known\n")
	os.WriteFile(kh, before, 0o600)
	cmd := exec.Command(os.Args[0], "-test.run=^TestBindingsTrustOnFirstUse$", "-test.count=1")
	cmd.Env = append(os.Environ(), "HOME="+home, "REHOME_TOFU_URI="+h.uri, "REHOME_TOFU_KEY="+h.srv.ClientKey, "SSH_AUTH_SOCK=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the bindings' ssh dial failed (%v): the test cannot show what it does:\n%s", err, out)
	}
	after, _ := os.ReadFile(kh)
	if bytes.Equal(after, before) {
		t.Fatal("the bindings no longer trust an unknown host on first use: rehome's own SSH client may be reconsidered")
	}
	if !strings.Contains(string(after), h.srv.HostKeyLine) {
		t.Fatalf("known_hosts after the bindings' dial: %q", after)
	}
	t.Logf("the bindings appended, unasked: %q", strings.TrimPrefix(string(after), string(before)))
}

// Attack: an unknown host is refused with its fingerprint, and known_hosts
// is left byte for byte as it was — on link.Open, on a run's engine, and with
// $CONTAINER_HOST.
func TestTeamHostUnknownKeyRefused(t *testing.T) {
	h := startTeamHost(t, sshdtest.Options{})
	before := h.writeKnownHosts(t, "# a user's file\n[127.0.0.1]:1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEbN/Bt1Sc4v5nVCIRwuNmRIFyGVEsUEEvZSEdvS4Bfn\n")
	_, err := link.Open(context.Background(), h.opts())
	var hk *link.HostKeyError
	if !errors.Is(err, link.ErrHostUnknown) || !errors.As(err, &hk) {
		t.Fatalf("link.Open of an unknown host: %v", err)
	}
	if hk.Fingerprint != h.srv.Fingerprint || !strings.Contains(err.Error(), h.srv.Fingerprint) || !strings.Contains(err.Error(), "rehome sandbox trust") {
		t.Fatalf("the refusal does not show the fingerprint %s and the way to trust it: %v", h.srv.Fingerprint, err)
	}
	sameFile(t, h.knownHosts(), before)

	_, err = New(context.Background(), Options{Connect: h.opts(), CacheDir: t.TempDir()})
	if !errors.Is(err, link.ErrHostUnknown) {
		t.Fatalf("New on an unknown host: %v", err)
	}
	t.Setenv("CONTAINER_HOST", h.uri)
	t.Setenv("CONTAINER_SSHKEY", h.srv.ClientKey)
	_, err = link.Open(context.Background(), link.ConnectOptions{SSHDir: h.sshDir})
	if !errors.Is(err, link.ErrHostUnknown) {
		t.Fatalf("link.Open through $CONTAINER_HOST of an unknown host: %v", err)
	}
	sameFile(t, h.knownHosts(), before)
	// No known_hosts at all: refused, and none is made.
	os.Remove(h.knownHosts())
	if _, err := link.Open(context.Background(), h.opts()); !errors.Is(err, link.ErrHostUnknown) {
		t.Fatalf("link.Open with no known_hosts: %v", err)
	}
	if _, err := os.Stat(h.knownHosts()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a known_hosts was made: %v", err)
	}
}

// Attack: a host whose key is not the known one is refused loudly, and the
// known line is never overwritten (nor by link.TrustHost).
func TestTeamHostChangedKeyRefused(t *testing.T) {
	h := startTeamHost(t, sshdtest.Options{})
	other := sshdtest.Start(t, sshdtest.Options{}) // another host key
	forged := strings.Replace(other.HostKeyLine, other.Addr[len("127.0.0.1:"):], h.srv.Addr[len("127.0.0.1:"):], 1)
	before := h.writeKnownHosts(t, forged+"\n")
	_, err := link.Open(context.Background(), h.opts())
	var hk *link.HostKeyError
	if !errors.Is(err, link.ErrHostKeyChanged) || !errors.As(err, &hk) || !hk.Changed {
		t.Fatalf("link.Open of a host with a changed key: %v", err)
	}
	for _, want := range []string{"CHANGED", h.srv.Fingerprint, other.Fingerprint, "ssh-keygen -R"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q: %v", want, err)
		}
	}
	sameFile(t, h.knownHosts(), before)
	if _, err := link.TrustHost(h.uri, h.srv.Fingerprint, h.opts()); !errors.Is(err, link.ErrHostKeyChanged) {
		t.Fatalf("link.TrustHost over a changed key: %v", err)
	}
	sameFile(t, h.knownHosts(), before)
}

// Attack: link.TrustHost with a wrong fingerprint writes nothing; with the
// right one it adds the host's line, after which the host is reached.
func TestTeamHostTrust(t *testing.T) {
	h := startTeamHost(t, sshdtest.Options{})
	before := h.writeKnownHosts(t, "# mine, no newline at the end")
	hk, err := link.ScanHostKey(h.uri, h.opts())
	if err != nil || hk.Fingerprint != h.srv.Fingerprint || hk.Known {
		t.Fatalf("link.ScanHostKey: %+v, %v (want %s, unknown)", hk, err, h.srv.Fingerprint)
	}
	wrong := "SHA256:" + strings.Repeat("A", 43)
	if _, err := link.TrustHost(h.uri, wrong, h.opts()); !errors.Is(err, link.ErrFingerprintMismatch) {
		t.Fatalf("link.TrustHost with a wrong fingerprint: %v", err)
	}
	sameFile(t, h.knownHosts(), before)
	if _, err := link.TrustHost(h.uri, h.srv.Fingerprint, h.opts()); err != nil {
		t.Fatalf("link.TrustHost: %v", err)
	}
	want := string(before) + "\n" + h.srv.HostKeyLine + "\n"
	sameFile(t, h.knownHosts(), []byte(want))
	// Known now: trusting again changes nothing.
	if hk, err := link.TrustHost(h.uri, h.srv.Fingerprint, h.opts()); err != nil || !hk.Known {
		t.Fatalf("link.TrustHost again: %+v, %v", hk, err)
	}
	sameFile(t, h.knownHosts(), []byte(want))
	c, err := link.Open(context.Background(), h.opts())
	if err != nil {
		t.Fatalf("link.Open after trust: %v", err)
	}
	defer c.Close()
	if !c.Remote || c.URI != h.uri || !strings.HasPrefix(c.Local(), "unix://") {
		t.Fatalf("connection: remote %v, URI %s, local %s", c.Remote, c.URI, c.Local())
	}
	if _, err := containers.List(c.Context(), nil); err != nil {
		t.Fatalf("a call over the link: %v", err)
	}
	st, err := os.Stat(filepath.Dir(strings.TrimPrefix(c.Local(), "unix://")))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("the link's local folder: %v, %v (want 0700)", st.Mode(), err)
	}
	local := strings.TrimPrefix(c.Local(), "unix://")
	c.Close()
	if _, err := os.Stat(local); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the link's socket is left after Close: %v", err)
	}
}

// Attack: an identity other users can read is refused, as ssh refuses it.
func TestTeamHostIdentityTooOpen(t *testing.T) {
	h := startTeamHost(t, sshdtest.Options{})
	h.trust(t)
	os.Chmod(h.srv.ClientKey, 0o644)
	_, err := link.Open(context.Background(), h.opts())
	if !errors.Is(err, link.ErrIdentityTooOpen) || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("link.Open with a 0644 identity: %v", err)
	}
}

// A key with a passphrase is asked once for the connection, not per call
// (Podman #7806), and a wrong passphrase is said so.
func TestTeamHostPassphraseAskedOnce(t *testing.T) {
	h := startTeamHost(t, sshdtest.Options{Passphrase: "correct horse"})
	h.trust(t)
	t.Setenv("SSH_AUTH_SOCK", "")
	opts := h.opts()
	if _, err := link.Open(context.Background(), opts); !errors.Is(err, link.ErrIdentity) || !strings.Contains(err.Error(), "ssh-add") {
		t.Fatalf("link.Open of a protected key with nothing to ask: %v", err)
	}
	opts.Passphrase = func(string) ([]byte, error) { return []byte("wrong"), nil }
	if _, err := link.Open(context.Background(), opts); !errors.Is(err, link.ErrIdentity) || !strings.Contains(err.Error(), "not right") {
		t.Fatalf("link.Open with a wrong passphrase: %v", err)
	}
	var asked atomic.Int32
	opts.Passphrase = func(string) ([]byte, error) { asked.Add(1); return []byte("correct horse"), nil }
	e, err := New(context.Background(), Options{Connect: opts, CacheDir: t.TempDir(), NoSweep: true})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer e.Close()
	for range 5 {
		if _, err := e.ImageStatus(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := asked.Load(); n != 1 {
		t.Fatalf("the passphrase was asked %d times (want once)", n)
	}
}

// A run on the team host: the same sandbox, reached over the link.
func TestTeamHostRun(t *testing.T) {
	h := startTeamHost(t, sshdtest.Options{User: teamhost.User})
	h.trust(t)
	e, err := New(context.Background(), Options{Connect: h.opts(), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer e.Close()
	if !e.remote() || e.Host().ServiceURI != h.uri || e.TeamHost() != teamhost.User+"@127.0.0.1:"+h.srv.Addr[len("127.0.0.1:"):] {
		t.Fatalf("engine: remote %v, service %s, host %s", e.remote(), e.Host().ServiceURI, e.TeamHost())
	}
	res, err := e.Run(context.Background(), RunRequest{Code: "print(6*7)", OutputDir: filepath.Join(t.TempDir(), "out")}, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != "42" || res.ConnectionLost {
		t.Fatalf("run over the link: exit %d, stdout %q, %s %v", res.ExitCode, res.Stdout, res.Summary, res.Notes)
	}
}

// An input sent to a rootful team host (root over ssh): Podman 4.3's
// archive PUT writes into the running container's /mnt/data tmpfs as the
// host's root, which has no id in the run's own user namespace (EOVERFLOW,
// "value too large for defined data type", in the service's log). rehome
// says so before any container exists, with the way out (a rootless
// account); a run without input files works there.
func TestTeamHostRootfulInput(t *testing.T) {
	h := startTeamHost(t, sshdtest.Options{})
	h.trust(t)
	e, err := New(context.Background(), Options{Connect: h.opts(), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer e.Close()
	if e.Host().Rootless {
		t.Fatalf("root's service over ssh reports rootless: the test would prove nothing")
	}
	in := filepath.Join(t.TempDir(), "in.csv")
	os.WriteFile(in, []byte("a\n1\n2\n"), 0o600)
	before := countOwnContainers(t, e)
	_, err = e.Run(context.Background(), RunRequest{Code: "print(open('/mnt/data/in.csv').read().count('\\n'))", InputPath: in, OutputDir: filepath.Join(t.TempDir(), "out")}, nil)
	if !errors.Is(err, errRootfulTeamHostFiles) || !strings.Contains(err.Error(), "rootless") {
		t.Fatalf("run with an input on a rootful team host: %v (want errRootfulTeamHostFiles with the way out)", err)
	}
	if after := countOwnContainers(t, e); after != before {
		t.Fatalf("a container was made for a refused run: %d before, %d after", before, after)
	}
	res, err := e.Run(context.Background(), RunRequest{Code: "print(6*7)", OutputDir: filepath.Join(t.TempDir(), "out2")}, nil)
	if err != nil || res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != "42" {
		t.Fatalf("run without input on a rootful team host: %v %+v", err, res)
	}
}

// countOwnContainers counts the containers of e's owner on its service.
func countOwnContainers(t *testing.T, e *Engine) int {
	t.Helper()
	list, err := containers.List(e.api(context.Background()), new(containers.ListOptions).WithAll(true).
		WithFilters(map[string][]string{"label": {labelOwner + "=" + e.owner}}))
	if err != nil {
		t.Fatalf("list containers: %v", err)
	}
	return len(list)
}

// Attack: sshd (and its sessions) killed mid-run. The run ends with the
// loss in words and keeps what came back; the container there ends and is
// removed by the host at its time limit.
func TestTeamHostConnectionLost(t *testing.T) {
	// The run's limit is long enough that only rehome's cleanup, not the
	// container's own --timeout, can remove it within the test's wait.
	h := startTeamHost(t, sshdtest.Options{User: teamhost.User})
	h.trust(t)
	e, err := New(context.Background(), Options{Connect: h.opts(), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer e.Close()
	id := NewRunID()
	killed := make(chan struct{})
	var once atomic.Bool
	start := time.Now()
	res, err := e.Run(context.Background(), RunRequest{ID: id, Code: "import time\nprint('before the loss', flush=True)\ntime.sleep(60)\nprint('after')",
		Limits: Limits{Timeout: 40 * time.Second}, OutputDir: filepath.Join(t.TempDir(), "out")}, func(p Progress) {
		if p.Stage == "output" && strings.Contains(p.Text, "before the loss") && once.CompareAndSwap(false, true) {
			go func() {
				time.Sleep(300 * time.Millisecond)
				h.srv.Kill()
				close(killed)
				time.Sleep(time.Second)
				h.srv.Restart(t)
			}()
		}
	})
	took := time.Since(start)
	if err != nil {
		t.Fatalf("a run whose link dropped must return what came back, got %v", err)
	}
	<-killed
	if !res.ConnectionLost || !strings.Contains(res.Summary, "The connection to "+teamhost.User+"@127.0.0.1:") || !strings.Contains(res.Summary, "was lost after") ||
		!strings.Contains(res.Stdout, "before the loss") || strings.Contains(res.Stdout, "after") {
		t.Fatalf("run: lost %v, summary %q, stdout %q", res.ConnectionLost, res.Summary, res.Stdout)
	}
	if took > 10*time.Second {
		t.Fatalf("the run took %s to notice the loss (the time limit is 40 s): %s, stdout %q, lost %v", took, res.Summary, res.Stdout, res.ConnectionLost)
	}
	t.Logf("the loss noticed, run ended after %s: %s", took.Round(time.Millisecond), res.Summary)
	if !errors.Is(e.Lost(), link.ErrConnectionLost) {
		t.Fatalf("engine.Lost: %v", e.Lost())
	}
	// The container on the host: removed as soon as the host answers
	// again (it is back a second after the kill), long before its own
	// time limit (8 s + the kill grace), looked at through the host's
	// service directly.
	api := h.local.api(context.Background())
	deadline := time.Now().Add(20 * time.Second)
	for {
		list, err := containers.List(api, new(containers.ListOptions).WithAll(true).WithFilters(map[string][]string{"label": {labelRun + "=" + id}}))
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sandbox of the run is still on the host %s after the loss: %v", time.Since(start).Round(time.Second), list[0].State)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("the sandbox on the host was gone %s after the run began", time.Since(start).Round(100*time.Millisecond))
}

// A sandbox the lost link left is removed on the next connection to the
// host, before its own time limit would end it.
func TestTeamHostLostSandboxRemovedOnNextConnection(t *testing.T) {
	h := startTeamHost(t, sshdtest.Options{User: teamhost.User})
	h.trust(t)
	cache := t.TempDir()
	e, err := New(context.Background(), Options{Connect: h.opts(), CacheDir: cache})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	id := NewRunID()
	var once atomic.Bool
	res, err := e.Run(context.Background(), RunRequest{ID: id, Code: "import time\nprint('up', flush=True)\ntime.sleep(60)",
		Limits: Limits{Timeout: 50 * time.Second}}, func(p Progress) {
		if p.Stage == "output" && once.CompareAndSwap(false, true) {
			go h.srv.Kill()
		}
	})
	if err != nil || !res.ConnectionLost {
		t.Fatalf("run: %v, %+v", err, res)
	}
	e.Close() // no cleanup from this engine: the next connection's job
	list := func() int {
		l, err := containers.List(h.local.api(context.Background()), new(containers.ListOptions).WithAll(true).
			WithFilters(map[string][]string{"label": {labelRun + "=" + id}}))
		if err != nil {
			t.Fatal(err)
		}
		return len(l)
	}
	if list() != 1 {
		t.Fatal("the sandbox is not on the host after the loss: the test shows nothing")
	}
	h.srv.Restart(t)
	e2, err := New(context.Background(), Options{Connect: h.opts(), CacheDir: cache})
	if err != nil {
		t.Fatalf("New after the host is back: %v", err)
	}
	defer e2.Close()
	deadline := time.Now().Add(15 * time.Second)
	for list() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the next connection did not remove the sandbox the lost link left")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The self-test on the team host — rehome-team's rootless service over
// ssh, on this machine's cgroup v1 —: every guarantee checked there, the
// report naming the host and saying what is weaker there.
func TestTeamHostDoctor(t *testing.T) {
	_, th := teamEngine(t, teamhost.User)
	srv := sshdtest.Start(t, sshdtest.Options{User: teamhost.User})
	dir := filepath.Join(t.TempDir(), "ssh")
	os.Mkdir(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "known_hosts"), []byte(srv.HostKeyLine+"\n"), 0o600)
	e, err := New(context.Background(), Options{Connect: link.ConnectOptions{URI: srv.URI(th.Socket), Identity: srv.ClientKey, SSHDir: dir}, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer e.Close()
	rep := e.Doctor(context.Background(), nil)
	if rep.TeamHost != e.TeamHost() || rep.TeamHost == "" || !strings.Contains(rep.Summary, "on the team host "+rep.TeamHost) {
		t.Fatalf("the report does not name the team host: %q, %q", rep.TeamHost, rep.Summary)
	}
	if !rep.OK {
		for _, c := range rep.Checks {
			t.Logf("%s %s: %s", c.Strength, c.Name, c.Detail)
		}
		t.Fatalf("the self-test over the link: %s", rep.Summary)
	}
	var timeout *Check
	for i, c := range rep.Checks {
		if c.Name == "timeout" {
			timeout = &rep.Checks[i]
		}
	}
	if timeout == nil || !strings.Contains(timeout.Detail, "cannot be counted from this machine") {
		t.Fatalf("the timeout check on a team host: %+v", timeout)
	}
	if h := e.Host(); h.Rootless && h.CgroupVersion != "v2" {
		found := false
		for _, n := range rep.Notes {
			found = found || (strings.Contains(n, rep.TeamHost) && strings.Contains(n, "rootless on cgroup"))
		}
		if !found {
			t.Fatalf("the report does not say what is weaker on the rootless cgroup %s host: %v", h.CgroupVersion, rep.Notes)
		}
	}
	weak := 0
	for _, c := range rep.Checks {
		if c.Strength == Weaker {
			weak++
		}
	}
	t.Logf("%d checks (%d weaker) in %d ms: %s", len(rep.Checks), weak, rep.DurationMS, rep.Summary)
}

// ~/.ssh/config names the host: its HostName, Port, User and IdentityFile
// complete ssh://alias/socket; $CONTAINER_HOST reaches it with no --podman.
func TestTeamHostSSHConfig(t *testing.T) {
	h := startTeamHost(t, sshdtest.Options{})
	h.writeKnownHosts(t, h.srv.HostKeyLine+"\n")
	sock := h.uri[strings.Index(h.uri[len("ssh://"):], "/")+len("ssh://"):]
	cfg := "Host other\n  User nobody\n\nHost gpu-box\n  HostName 127.0.0.1\n  Port " + h.srv.Addr[len("127.0.0.1:"):] + "\n  User root\n  IdentityFile " + h.srv.ClientKey + "\n"
	os.WriteFile(filepath.Join(h.sshDir, "config"), []byte(cfg), 0o600)
	// No agent: the login can only be the config's IdentityFile, as its User.
	t.Setenv("SSH_AUTH_SOCK", "")
	c, err := link.Open(context.Background(), link.ConnectOptions{URI: "ssh://gpu-box" + sock, SSHDir: h.sshDir})
	if err != nil {
		t.Fatalf("link.Open through ~/.ssh/config: %v", err)
	}
	if got, want := c.Host(), "root@gpu-box:"+h.srv.Addr[len("127.0.0.1:"):]; got != want {
		t.Errorf("the team host reads %q, want %q", got, want)
	}
	c.Close()
	t.Setenv("CONTAINER_HOST", "ssh://gpu-box"+sock)
	c, err = link.Open(context.Background(), link.ConnectOptions{SSHDir: h.sshDir})
	if err != nil || !c.Remote || !c.FilesTravel {
		t.Fatalf("link.Open through $CONTAINER_HOST: %v", err)
	}
	c.Close()
	for _, bad := range []string{"ssh://", "ssh://gpu-box", "ssh://gpu-box/", "http://gpu-box/x.sock"} {
		if err := link.CheckTeamHost(bad); !errors.Is(err, link.ErrBadTeamHost) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// The seccomp profile travels in the image (its label; SeccompPolicy
// image): a team host's Podman needs no file of this machine, nor one put
// on its own disk. The engine's cache folder here is one the team account
// cannot read (a profile path there failed: "opening seccomp profile
// failed: … permission denied"), and nothing is written to the account's
// own cache folder.
func TestTeamHostSeccompOnHost(t *testing.T) {
	_, th := teamEngine(t, teamhost.User) // the account, its service, the image
	srv := sshdtest.Start(t, sshdtest.Options{User: teamhost.User})
	dir := filepath.Join(t.TempDir(), "ssh")
	os.Mkdir(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "known_hosts"), []byte(srv.HostKeyLine+"\n"), 0o600)
	cache := t.TempDir()
	if th.CanRead(cache) {
		t.Fatalf("%s can read %s: the test would prove nothing", teamhost.User, cache)
	}
	before, _ := filepath.Glob(filepath.Join(th.Home, ".cache", "rehome", "seccomp-*.json"))
	e, err := New(context.Background(), Options{Connect: link.ConnectOptions{URI: srv.URI(th.Socket), Identity: srv.ClientKey, SSHDir: dir}, CacheDir: cache})
	if err != nil {
		t.Fatalf("New over ssh as %s: %v", teamhost.User, err)
	}
	defer e.Close()
	code := "import ctypes\n" +
		"print(open('/proc/self/status').read().split('Seccomp:')[1].split()[0])\n" +
		"libc = ctypes.CDLL(None, use_errno=True)\n" +
		"print(libc.syscall(250, 0, 0, 0, 0), ctypes.get_errno())\n" // keyctl(KEYCTL_GET_KEYRING_ID): EPERM (1) under rehome's profile
	res, err := e.Run(context.Background(), RunRequest{Code: code, OutputDir: filepath.Join(t.TempDir(), "out")}, nil)
	if err != nil {
		t.Fatalf("run over ssh as %s: %v", teamhost.User, err)
	}
	if lines := strings.Fields(res.Stdout); res.ExitCode != 0 || len(lines) != 3 || lines[0] != "2" || lines[1] != "-1" || lines[2] != "1" {
		t.Fatalf("the run's seccomp mode and keyctl: exit %d, %q (want 2, then -1 1: filtered, EPERM), %s", res.ExitCode, res.Stdout, res.Summary)
	}
	after, _ := filepath.Glob(filepath.Join(th.Home, ".cache", "rehome", "seccomp-*.json"))
	if len(after) != len(before) {
		t.Fatalf("a seccomp profile was written on the host (%v): the image carries it", after)
	}
}

// A protected key the ssh agent holds (a real ssh-agent): nothing is
// asked, even with --identity naming the file.
func TestTeamHostAgent(t *testing.T) {
	h := startTeamHost(t, sshdtest.Options{Passphrase: "correct horse"})
	h.trust(t)
	sock := filepath.Join(t.TempDir(), "agent.sock")
	agentCmd := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := agentCmd.Start(); err != nil {
		t.Skipf("no ssh-agent: %v", err)
	}
	t.Cleanup(func() { agentCmd.Process.Kill(); agentCmd.Wait() })
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	// ssh-add as a user would, the passphrase given through SSH_ASKPASS.
	askpass := filepath.Join(t.TempDir(), "askpass")
	os.WriteFile(askpass, []byte("#!/bin/sh\necho 'correct horse'\n"), 0o700)
	add := exec.Command("ssh-add", h.srv.ClientKey)
	add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock, "SSH_ASKPASS="+askpass, "SSH_ASKPASS_REQUIRE=force", "DISPLAY=none")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v %s", err, out)
	}
	t.Setenv("SSH_AUTH_SOCK", sock)
	opts := h.opts() // --identity names the protected file
	var asked atomic.Int32
	opts.Passphrase = func(string) ([]byte, error) { asked.Add(1); return nil, errors.New("must not be asked") }
	c, err := link.Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("link.Open with the key in the agent: %v", err)
	}
	c.Close()
	opts.Identity = "" // the agent alone
	if c, err = link.Open(context.Background(), opts); err != nil {
		t.Fatalf("link.Open with the agent alone: %v", err)
	}
	c.Close()
	if asked.Load() != 0 {
		t.Fatalf("the passphrase was asked %d times with the key in the agent", asked.Load())
	}
}
