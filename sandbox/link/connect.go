package link

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ConnectOptions choose the Podman service.
type ConnectOptions struct {
	// URI names the service ("unix:///run/podman/podman.sock"). Empty: look
	// for one — $CONTAINER_HOST, the user's rootless socket, the rootful
	// socket when running as root — and start a private one if none answers.
	URI string
	// NoStart forbids starting a private service.
	NoStart bool
	// PodmanPath is the podman binary used to start a private service
	// (default: "podman" on $PATH).
	PodmanPath string
	// StartTimeout bounds the wait for a started service (default 20s).
	StartTimeout time.Duration
	// Runtime is the OCI runtime of a service rehome starts (`podman
	// --runtime`). The runtime is the service's choice: Podman's REST API
	// ignores a per-container runtime.
	Runtime string
	// ForceStart skips looking for a running service.
	ForceStart bool
	// Skip lists service URIs not to use (known unable to run sandboxes).
	Skip []string
	// Linger keeps a service rehome starts running after this process
	// ends, until it has been idle that long (`podman system service
	// --time`), in a private folder of this user's runtime directory where
	// the next command finds it: a command-line tool would otherwise pay a
	// service start on every call. Zero: the service stops with Close.
	Linger time.Duration
	// LingerBase is the folder that holds lingering services' folders
	// (default /run/rehome for root, else $XDG_RUNTIME_DIR/rehome).
	LingerBase string
	// StorageRoot is the graph root of a rootless service rehome starts
	// (default storageRoot()); see storage.go.
	StorageRoot string
	// SharedStorage makes a rootless service rehome starts use the
	// user's own Podman storage instead of its own.
	SharedStorage bool
	// Identity is the ssh private key for an ssh:// URI (default:
	// $CONTAINER_SSHKEY, ~/.ssh/config's IdentityFile, the agent, ~/.ssh/id_*).
	Identity string
	// SSHDir holds known_hosts, config and the default keys (default
	// ~/.ssh).
	SSHDir string
	// Passphrase asks, once per connection, the passphrase of an identity
	// that has one (nil: such a key is refused unless the agent holds it).
	Passphrase func(file string) ([]byte, error)
}

// Connection is an open connection to a Podman service.
type Connection struct {
	// URI is the service's address.
	URI string
	// Started is true when rehome started the service itself.
	Started bool
	// Runtime is the --runtime a started service was given ("" default).
	Runtime string
	// Storage is a started service's own storage (zero: the user's or
	// root's).
	Storage PrivateStorage
	// Remote is true for a team host (ssh://): its files must travel over
	// the connection, never as bind mounts of local paths.
	Remote bool
	// FilesTravel is true when the service cannot be given this
	// machine's paths to mount: it runs on another machine, or as another
	// user (a unix socket whose peer is not this process's uid, as root
	// calling a team account's rootless service). The engine then sends
	// the inputs through the connection (Podman's archive API) instead of
	// bind-mounting them (send.go).
	FilesTravel bool
	link        *sshLink
	ctx         context.Context
	svc         *exec.Cmd
	dir         string
	done        chan struct{}
}

// Context returns the bindings' connection context.
func (c *Connection) Context() context.Context { return c.ctx }

// Close stops the service when rehome started it: the whole process
// group, since a rootless podman runs the service in a child inside the
// user namespace, which its parent's end does not always take with it
// (the service that first set up a user's Podman outlived rehome, parent
// PID 1, with --time=0: for ever).
func (c *Connection) Close() error {
	if c != nil && c.link != nil {
		return c.link.close()
	}
	if c == nil || c.svc == nil {
		return nil
	}
	stopGroup(c.svc.Process.Pid, c.done)
	c.svc = nil
	return os.RemoveAll(c.dir)
}

// stopGroup ends process group pgid (a service rehome started, with
// Setpgid or Setsid, so its leader's pid): SIGTERM, then SIGKILL after 5 s
// for whatever is left; done closes when the leader has been reaped.
func stopGroup(pgid int, done <-chan struct{}) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.Now().Add(5 * time.Second)
	leaderGone := false
	for {
		if !leaderGone {
			select {
			case <-done:
				leaderGone = true
			default:
			}
		}
		if leaderGone && syscall.Kill(-pgid, 0) == syscall.ESRCH {
			return
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-done
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Open finds the user's Podman service or starts a private one, and
// returns the connection to it; Close releases it (stopping the service if
// Open started it).
func Open(ctx context.Context, opts ConnectOptions) (*Connection, error) {
	if uri := remoteURI(opts); uri != "" {
		return OpenRemote(ctx, uri, opts)
	}
	var tried []string
	if opts.ForceStart {
		return startService(ctx, opts)
	}
	for _, uri := range candidateURIs(opts) {
		cctx, err := dial(ctx, uri)
		if err == nil {
			// (A team host over ssh:// sets FilesTravel in OpenRemote.)
			return &Connection{URI: uri, ctx: cctx, FilesTravel: filesTravel(uri)}, nil
		}
		tried = append(tried, fmt.Sprintf("%s (%v)", uri, shortErr(err)))
		if opts.URI != "" {
			return nil, fmt.Errorf("cannot reach the Podman service at %s: %w", uri, err)
		}
	}
	if opts.NoStart {
		return nil, fmt.Errorf("no Podman service answers (tried %s): start one with `podman system service --time=0 &` or `systemctl --user start podman.socket`", strings.Join(tried, ", "))
	}
	return startService(ctx, opts)
}

func candidateURIs(opts ConnectOptions) []string {
	if opts.URI != "" {
		return []string{opts.URI}
	}
	var out []string
	if h := os.Getenv("CONTAINER_HOST"); h != "" {
		out = append(out, h)
	}
	if os.Geteuid() == 0 {
		out = append(out, "unix:///run/podman/podman.sock")
	} else {
		dir := os.Getenv("XDG_RUNTIME_DIR")
		if dir == "" {
			dir = fmt.Sprintf("/run/user/%d", os.Getuid())
		}
		out = append(out, "unix://"+filepath.Join(dir, "podman", "podman.sock"))
	}
	var keep []string
	for _, u := range out {
		if slices.Contains(opts.Skip, u) {
			continue
		}
		if p, ok := strings.CutPrefix(u, "unix://"); ok {
			if _, err := os.Stat(p); err != nil {
				continue // no socket there: nothing to try
			}
		}
		keep = append(keep, u)
	}
	return keep
}

// dial connects and pings, bounded to a few seconds.
func dial(ctx context.Context, uri string) (context.Context, error) {
	if p, ok := strings.CutPrefix(uri, "unix://"); ok {
		// Fail fast on a stale socket: bindings retry for a long while.
		conn, err := net.DialTimeout("unix", p, 2*time.Second)
		if err != nil {
			return nil, err
		}
		conn.Close()
	}
	type res struct {
		ctx context.Context
		err error
	}
	ch := make(chan res, 1)
	go func() {
		c, err := NewBindings(ctx, uri)
		ch <- res{c, err}
	}()
	select {
	case r := <-ch:
		return r.ctx, r.err
	case <-time.After(15 * time.Second):
		return nil, errors.New("the service did not answer within 15s")
	}
}

// filesTravel reports whether the service at uri cannot see this
// process's files: a unix socket served by another uid than ours (a
// remote service's hook: team-link's Connection.Remote sets it too).
func filesTravel(uri string) bool {
	p, ok := strings.CutPrefix(uri, "unix://")
	if !ok {
		// ssh:// and tcp:// reach another machine.
		return strings.HasPrefix(uri, "ssh://") || strings.HasPrefix(uri, "tcp://")
	}
	uid, err := socketPeerUID(p)
	return err == nil && uid != os.Geteuid()
}

// socketPeerUID is the uid of the process serving the unix socket at path
// (SO_PEERCRED: who created the listening socket).
func socketPeerUID(path string) (int, error) {
	conn, err := net.DialTimeout("unix", path, 2*time.Second)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	raw, err := conn.(*net.UnixConn).SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil {
		return 0, err
	}
	if cerr != nil {
		return 0, cerr
	}
	return int(cred.Uid), nil
}

func shortErr(err error) string {
	s := err.Error()
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// startService runs `podman system service` on a socket in a private
// folder, which is also its working directory: conmon drops files such as
// "oom" into its working directory on cgroup v1, and they must land
// nowhere the user cares about.
func startService(ctx context.Context, opts ConnectOptions) (*Connection, error) {
	bin := opts.PodmanPath
	if bin == "" {
		bin = "podman"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrPodmanMissing, InstallHint())
	}
	// The runtime is named, never left to the service's default, so that
	// rehome knows which one runs its sandboxes.
	rt := opts.Runtime
	if rt == "" {
		for _, cand := range PrivateRuntimes {
			if _, err := exec.LookPath(cand); err == nil {
				rt = cand
				break
			}
		}
	}
	if opts.Linger > 0 {
		name := rt
		if os.Geteuid() != 0 && !opts.SharedStorage {
			// Not the folder of a service on the user's storage (an
			// older rehome's, still idling).
			name += "-own"
		}
		if dir, ok := lingerDir(opts.LingerBase, name); ok {
			return lingeringService(ctx, opts, path, rt, dir)
		}
	}
	dir, err := os.MkdirTemp("", "rehome-podman-")
	if err != nil {
		return nil, fmt.Errorf("create a folder for the Podman service: %w", err)
	}
	return runService(ctx, opts, path, rt, dir, false)
}

// lingerDir is the private folder of a lingering service with runtime rt:
// base/podman-<rt>, base being by default /run/rehome for root and
// $XDG_RUNTIME_DIR/rehome otherwise — or none when there is no such
// runtime folder.
func lingerDir(base, rt string) (string, bool) {
	switch {
	case base != "":
	case os.Geteuid() == 0:
		base = "/run/rehome"
	default:
		x := os.Getenv("XDG_RUNTIME_DIR")
		if x == "" {
			return "", false
		}
		base = filepath.Join(x, "rehome")
	}
	name := "podman-" + rt
	if rt == "" {
		name = "podman"
	}
	dir, err := privateDirIn(base, name)
	return dir, err == nil
}

// privateDirIn makes base/name (each 0700) and checks that both are this
// user's private folders that no other user can plant or rename.
func privateDirIn(base, name string) (string, error) {
	dir := filepath.Join(base, name)
	for _, d := range []string{base, dir} {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return "", err
		}
		if err := CheckPrivate(d); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// lingeringService connects to the lingering service in dir, or starts it
// there. A lock on the folder makes commands started together share one.
func lingeringService(ctx context.Context, opts ConnectOptions, path, rt, dir string) (*Connection, error) {
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the Podman service's folder: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return nil, fmt.Errorf("lock the Podman service's folder: %w", err)
	}
	sock := filepath.Join(dir, "podman.sock")
	if _, err := os.Lstat(sock); err == nil {
		if cctx, err := dial(ctx, "unix://"+sock); err == nil {
			storage, _ := privateStorage(opts)
			return &Connection{URI: "unix://" + sock, Started: true, Runtime: rt, Storage: storage, ctx: cctx}, nil
		}
		os.Remove(sock) // a service that idled out or died
	}
	return runService(ctx, opts, path, rt, dir, true)
}

// runService starts `podman system service` on dir/podman.sock, dir being
// also its working directory. A lingering service is its own session and
// ends when idle for opts.Linger; another dies with rehome.
func runService(ctx context.Context, opts ConnectOptions, path, rt, dir string, linger bool) (*Connection, error) {
	sock := filepath.Join(dir, "podman.sock")
	uri := "unix://" + sock
	idle := "--time=0"
	if linger {
		idle = fmt.Sprintf("--time=%d", max(1, int(opts.Linger.Seconds())))
	}
	storage, err := privateStorage(opts)
	if err != nil {
		if !linger {
			os.RemoveAll(dir)
		}
		return nil, err
	}
	args := append(storage.args(), "system", "service", idle, uri)
	if rt != "" {
		args = append([]string{"--runtime", rt}, args...)
	}
	cmd := serviceCommand(path, args, dir, linger)
	logf, err := os.Create(filepath.Join(dir, "service.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		if !linger {
			os.RemoveAll(dir)
		}
		return nil, fmt.Errorf("start `podman system service`: %w", err)
	}
	logf.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	c := &Connection{URI: uri, Started: true, Runtime: rt, Storage: storage, svc: cmd, dir: dir, done: done}
	stop := c.Close
	if linger {
		// Close leaves it running; the next command finds it. Only a start
		// that fails here stops it.
		c.svc, c.dir = nil, ""
		stop = func() error { stopGroup(cmd.Process.Pid, done); os.Remove(sock); return nil }
	}
	if err := awaitService(ctx, c, opts.StartTimeout, sock, dir, linger, stop); err != nil {
		return nil, err
	}
	return c, nil
}

// serviceCommand is the `podman system service` command, run in dir. A
// service is local by definition: variables that would turn this podman
// into a remote client (where --runtime and `system service` do not
// exist) are not passed on. The service dies with rehome, so that no
// orphan keeps the socket; a lingering one is a session of its own that
// ends by itself when idle.
func serviceCommand(path string, args []string, dir string, linger bool) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "CONTAINER_HOST" && k != "CONTAINER_CONNECTION" && k != "CONTAINER_SSHKEY" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
	if linger {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	return cmd
}

// awaitService waits until the started service answers on sock (c's
// connection is then set), within limit (0: 20 s); a service that exits
// or does not answer in time, or a cancelled ctx, is an error, its log's
// tail said, and it is stopped.
func awaitService(ctx context.Context, c *Connection, limit time.Duration, sock, dir string, linger bool, stop func() error) error {
	if limit == 0 {
		limit = 20 * time.Second
	}
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-c.done:
			tail := logTail(filepath.Join(dir, "service.log"))
			if !linger {
				os.RemoveAll(dir)
			}
			return fmt.Errorf("`podman system service` exited at once: %s", tail)
		default:
		}
		if _, err := os.Stat(sock); err == nil {
			if cctx, err := dial(ctx, c.URI); err == nil {
				c.ctx = cctx
				return nil
			}
		}
		if time.Now().After(deadline) {
			tail := logTail(filepath.Join(dir, "service.log"))
			stop()
			return fmt.Errorf("`podman system service` did not answer within %s: %s", limit, tail)
		}
		select {
		case <-ctx.Done():
			stop()
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
}

func logTail(path string) string {
	data, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(data))
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	if s == "" {
		s = "no output"
	}
	return s
}

// InstallHint says how to install Podman on this system.
func InstallHint() string {
	id := osRelease()
	switch {
	case id["ID"] == "debian" || id["ID"] == "ubuntu" || strings.Contains(id["ID_LIKE"], "debian"):
		return "install it with `sudo apt-get install podman`"
	case id["ID"] == "fedora" || strings.Contains(id["ID_LIKE"], "fedora") || strings.Contains(id["ID_LIKE"], "rhel"):
		return "install it with `sudo dnf install podman`"
	case id["ID"] == "arch" || strings.Contains(id["ID_LIKE"], "arch"):
		return "install it with `sudo pacman -S podman`"
	case strings.Contains(id["ID"], "opensuse") || strings.Contains(id["ID_LIKE"], "suse"):
		return "install it with `sudo zypper install podman`"
	case id["ID"] == "alpine":
		return "install it with `sudo apk add podman`"
	}
	return "install Podman 4 or newer from your distribution's packages (see https://podman.io/docs/installation)"
}

func osRelease() map[string]string {
	out := map[string]string{}
	f, err := os.Open("/etc/os-release")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok {
			out[k] = strings.Trim(v, `"'`)
		}
	}
	return out
}
