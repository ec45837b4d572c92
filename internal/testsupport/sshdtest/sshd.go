package sshdtest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// SSHD is the OpenSSH server binary.
const SSHD = "/usr/sbin/sshd"

// Options choose the server's user and keys.
type Options struct {
	// User may log in (default root).
	User string
	// Passphrase protects the generated client key ("" none).
	Passphrase string
}

// Server is a running sshd.
type Server struct {
	// Addr is 127.0.0.1:PORT.
	Addr string
	// Port is the port it listens on.
	Port int
	// User is the user it lets in.
	User string
	// ClientKey is the generated private key (0600) the user logs in with;
	// ClientKey+".pub" is its public half.
	ClientKey string
	// HostKeyLine is the host key as a known_hosts line for Addr.
	HostKeyLine string
	// Fingerprint is the host key's fingerprint as `ssh-keygen -lf`
	// prints it ("SHA256:…").
	Fingerprint string
	// Dir holds the server's config, keys and authorized_keys.
	Dir string

	clientDir string
	cmd       *exec.Cmd
	log       *syncBuffer
	done      chan struct{}
}

// Start runs sshd for the test and stops it (and every session it forked)
// when the test ends. It skips the test when sshd is not installed, unless
// REHOME_REQUIRE_SSHD=1 makes that a failure.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	if _, err := os.Stat(SSHD); err != nil {
		if os.Getenv("REHOME_REQUIRE_SSHD") == "1" {
			t.Fatalf("no %s: install openssh-server (build/setup.sh test)", SSHD)
		}
		t.Skipf("no %s (install openssh-server; REHOME_REQUIRE_SSHD=1 makes this a failure)", SSHD)
	}
	if os.Geteuid() != 0 {
		t.Skip("sshdtest runs sshd as root (it switches to the user of each login)")
	}
	s, err := New(opts)
	if err != nil {
		t.Fatalf("sshdtest: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("sshd's log:\n%s", s.Log())
		}
		s.Close()
	})
	return s
}

// New runs sshd (as root); Close stops it and removes its files.
func New(opts Options) (*Server, error) {
	if opts.User == "" {
		opts.User = "root"
	}
	u, err := user.Lookup(opts.User)
	if err != nil {
		return nil, fmt.Errorf("no user %s: %v", opts.User, err)
	}
	// StrictModes: the authorized_keys and every folder above it owned
	// by root (or the user) and writable by no one else — not under /tmp
	// (mode 1777). The user reads it after sshd drops privileges: 0755 and
	// 0644.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // privilege separation
		return nil, err
	}
	dir, err := os.MkdirTemp("/run", "rehome-sshdtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{User: opts.User, Dir: dir}
	fail := func(err error) (*Server, error) { s.Close(); return nil, err }
	os.Chmod(dir, 0o755)
	if s.clientDir, err = os.MkdirTemp("", "rehome-sshdtest-client-"); err != nil {
		return fail(err)
	}
	hostKey := filepath.Join(dir, "host_ed25519")
	if err := keygen(hostKey, ""); err != nil {
		return fail(err)
	}
	s.ClientKey = filepath.Join(s.clientDir, "id_ed25519")
	if err := keygen(s.ClientKey, opts.Passphrase); err != nil {
		return fail(err)
	}
	pub, err := os.ReadFile(s.ClientKey + ".pub")
	if err != nil {
		return fail(err)
	}
	auth := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(auth, pub, 0o644); err != nil {
		return fail(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	os.Chown(auth, uid, 0)
	hostPub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		return fail(err)
	}
	fp, err := exec.Command("ssh-keygen", "-lf", hostKey+".pub").Output()
	if err != nil {
		return fail(fmt.Errorf("ssh-keygen -lf: %v", err))
	}
	s.Fingerprint = strings.Fields(string(fp))[1]
	for attempt := 0; ; attempt++ {
		if s.Port, err = freePort(); err != nil {
			return fail(err)
		}
		s.Addr = fmt.Sprintf("127.0.0.1:%d", s.Port)
		conf := filepath.Join(dir, "sshd_config")
		os.WriteFile(conf, []byte(fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile none
AuthorizedKeysFile %s
AllowUsers %s
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM %s
StrictModes yes
AllowStreamLocalForwarding yes
X11Forwarding no
LogLevel VERBOSE
`, s.Port, hostKey, auth, opts.User, usePAM(u))), 0o600)
		err := s.start(conf)
		if err == nil {
			break
		}
		if attempt == 3 {
			return fail(err)
		}
	}
	s.HostKeyLine = fmt.Sprintf("[127.0.0.1]:%d %s", s.Port, strings.Join(strings.Fields(string(hostPub))[:2], " "))
	return s, nil
}

// Close stops sshd and removes its files and the client key.
func (s *Server) Close() {
	s.Kill()
	if s.Dir != "" {
		os.RemoveAll(s.Dir)
	}
	if s.clientDir != "" {
		os.RemoveAll(s.clientDir)
	}
}

// usePAM is "yes" for an account whose password is locked ("!" in
// /etc/shadow, as useradd leaves it): without PAM, sshd refuses even a key
// login to it; PAM's account check does not.
func usePAM(u *user.User) string {
	if u.Uid == "0" {
		return "no"
	}
	return "yes"
}

func keygen(path, pass string) error {
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", pass, "-C", "rehome-sshdtest", "-f", path).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ssh-keygen: %v: %s", err, out)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start runs sshd and waits for its banner.
func (s *Server) start(conf string) error {
	s.log = &syncBuffer{}
	s.cmd = exec.Command(SSHD, "-D", "-e", "-f", conf)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.done = make(chan struct{})
	go func() { s.cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("sshd exited: %s", s.log.String())
		default:
		}
		c, err := net.DialTimeout("tcp", s.Addr, time.Second)
		if err == nil {
			c.SetDeadline(time.Now().Add(2 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "SSH-") {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Kill()
	return fmt.Errorf("sshd did not answer on %s: %s", s.Addr, s.log.String())
}

// URI is the ssh:// address of a socket on this host, for the server's
// user.
func (s *Server) URI(socket string) string {
	return fmt.Sprintf("ssh://%s@127.0.0.1:%d%s", s.User, s.Port, socket)
}

// Kill ends sshd and every session process it forked (they run in
// sessions of their own), as a crash or a reboot of the host would:
// SIGKILL, no goodbye on the wire.
func (s *Server) Kill() {
	if s.cmd == nil || s.cmd.Process == nil || s.done == nil {
		return
	}
	select {
	case <-s.done:
		return
	default:
	}
	pid := s.cmd.Process.Pid
	for _, p := range descendants(pid) {
		syscall.Kill(p, syscall.SIGKILL)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	<-s.done
}

// Restart starts sshd again after Kill, on the same port with the same
// keys (the host back after a crash).
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.start(filepath.Join(s.Dir, "sshd_config")); err != nil {
		t.Fatalf("sshdtest: restart: %v", err)
	}
}

// Log is what sshd wrote.
func (s *Server) Log() string {
	if s.log == nil {
		return ""
	}
	return s.log.String()
}

// descendants are the processes below pid, from /proc.
func descendants(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) > 1 {
			pp, _ := strconv.Atoi(f[1])
			parent[p] = pp
		}
	}
	var out []int
	var walk func(int)
	walk = func(root int) {
		for p, pp := range parent {
			if pp == root {
				out = append(out, p)
				walk(p)
			}
		}
	}
	walk(pid)
	return out
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.Len() > 1<<20 {
		return len(p), nil
	}
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
