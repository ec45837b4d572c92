package link

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
