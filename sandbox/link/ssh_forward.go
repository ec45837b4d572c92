package link

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// The link to a team host: one SSH connection, checked and logged in once,
// and a local unix socket in a private folder (0700, the socket 0600) whose
// every connection is a channel to the remote Podman socket. The bindings
// are handed unix://that-socket and never dial SSH themselves.

const (
	// sshDialTimeout bounds reaching the host and the SSH handshake.
	sshDialTimeout = 10 * time.Second
	// sshKeepalive is how often an idle link asks the host whether it is
	// still there; a host that does not answer within twice that is lost.
	sshKeepalive = 5 * time.Second
)

// sshLink is an open link to a team host's Podman socket.
type sshLink struct {
	target sshTarget
	client *ssh.Client
	dir    string // the private folder of the local socket
	sock   string // the local socket
	ln     net.Listener
	opened time.Time

	mu      sync.Mutex
	conns   map[io.Closer]bool
	closing bool
	lostAt  time.Time
	lost    chan struct{} // closed when the link dropped (not by close)
	done    chan struct{} // closed when the link is down, whatever the cause
}

// dialSSH logs in to the host of an ssh:// address, checking its host key
// strictly, and serves its Podman socket on a private local socket.
func dialSSH(ctx context.Context, uri string, opts ConnectOptions) (*sshLink, error) {
	dir := sshDir(opts)
	t, err := parseSSHURI(uri, dir)
	if err != nil {
		return nil, err
	}
	check, algos, err := strictHostKey(t, filepath.Join(dir, "known_hosts"))
	if err != nil {
		return nil, err
	}
	methods, closeAgent, err := authMethods(t, opts)
	if err != nil {
		return nil, err
	}
	defer closeAgent()
	cfg := &ssh.ClientConfig{User: t.user, Auth: methods, HostKeyCallback: check, HostKeyAlgorithms: algos, Timeout: sshDialTimeout}
	d := net.Dialer{Timeout: sshDialTimeout}
	nc, err := d.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot reach %s (%s): %v — check the address and that sshd runs there", errTeamHostUnreachable, t.display(), t.addr, err)
	}
	nc.SetDeadline(time.Now().Add(sshDialTimeout))
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	c, chans, reqs, err := ssh.NewClientConn(nc, t.addr, cfg)
	stop()
	if err != nil {
		nc.Close()
		if hk, ok := errorsAsHostKey(err); ok {
			return nil, hk
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if strings.Contains(err.Error(), "unable to authenticate") {
			return nil, fmt.Errorf("%w: %s refused the key(s) offered for %s: add your public key (the .pub beside the identity) to ~%s/.ssh/authorized_keys there, or name the right one with --identity FILE",
				errLoginRefused, t.display(), t.user, t.user)
		}
		return nil, fmt.Errorf("%w: the SSH handshake with %s failed: %v", errTeamHostUnreachable, t.display(), err)
	}
	nc.SetDeadline(time.Time{})
	client := ssh.NewClient(c, chans, reqs)
	// The socket must answer before anything is served.
	probe, err := client.Dial("unix", t.socket)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("%w: no Podman socket answers at %s on %s (%v): start it there as %s with `systemctl --user enable --now podman.socket` (or `podman system service --time=0 &`)",
			errTeamHostUnreachable, t.socket, t.display(), err, t.user)
	}
	probe.Close()
	l := &sshLink{target: t, client: client, opened: time.Now(), conns: map[io.Closer]bool{}, lost: make(chan struct{}), done: make(chan struct{})}
	if l.dir, err = os.MkdirTemp("", "rehome-ssh-"); err != nil {
		client.Close()
		return nil, fmt.Errorf("make a private folder for the link to %s: %w", t.display(), err)
	}
	l.sock = filepath.Join(l.dir, "podman.sock")
	if l.ln, err = net.Listen("unix", l.sock); err != nil {
		client.Close()
		os.RemoveAll(l.dir)
		return nil, fmt.Errorf("serve the link to %s: %w", t.display(), err)
	}
	os.Chmod(l.sock, 0o600)
	go l.serve()
	go l.watch()
	go l.keepalive()
	return l, nil
}

// uri is the local socket's address, for the bindings.
func (l *sshLink) uri() string { return "unix://" + l.sock }

// serve forwards each local connection to the remote socket.
func (l *sshLink) serve() {
	for {
		lc, err := l.ln.Accept()
		if err != nil {
			return
		}
		rc, err := l.client.Dial("unix", l.target.socket)
		if err != nil {
			lc.Close()
			continue
		}
		if !l.track(lc, rc) {
			continue
		}
		go func() {
			defer l.untrack(lc, rc)
			done := make(chan struct{}, 2)
			go func() { io.Copy(rc, lc); rc.Close(); done <- struct{}{} }()
			go func() { io.Copy(lc, rc); closeWrite(lc); done <- struct{}{} }()
			<-done
			<-done
		}()
	}
}

func closeWrite(c net.Conn) {
	if u, ok := c.(*net.UnixConn); ok {
		u.CloseWrite()
		return
	}
	c.Close()
}

// track remembers a forwarded pair so that a dropped link closes it; false
// (and both closed) when the link is already down.
func (l *sshLink) track(a, b io.Closer) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.done:
		a.Close()
		b.Close()
		return false
	default:
	}
	l.conns[a], l.conns[b] = true, true
	return true
}

func (l *sshLink) untrack(a, b io.Closer) {
	l.mu.Lock()
	delete(l.conns, a)
	delete(l.conns, b)
	l.mu.Unlock()
	a.Close()
	b.Close()
}

// watch waits for the SSH connection to end; an end rehome did not ask for
// is a lost link: every forwarded connection is closed at once, so that
// calls in flight fail now rather than hang.
func (l *sshLink) watch() {
	l.client.Wait()
	l.mu.Lock()
	if !l.closing {
		l.lostAt = time.Now()
		close(l.lost)
	}
	close(l.done)
	conns := l.conns
	l.conns = map[io.Closer]bool{}
	l.mu.Unlock()
	l.ln.Close()
	for c := range conns {
		c.Close()
	}
}

// keepalive asks the host every sshKeepalive; no answer within twice that
// ends the link (a host that vanished from the network sends no FIN).
func (l *sshLink) keepalive() {
	t := time.NewTicker(sshKeepalive)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-t.C:
		}
		answered := make(chan error, 1)
		go func() {
			_, _, err := l.client.SendRequest("keepalive@openssh.com", true, nil)
			answered <- err
		}()
		select {
		case err := <-answered:
			if err != nil {
				l.client.Close()
			}
		case <-time.After(2 * sshKeepalive):
			l.client.Close()
		case <-l.done:
			return
		}
	}
}

// lostErr is a *ConnectionLostError once the link dropped, else nil.
func (l *sshLink) lostErr() error {
	select {
	case <-l.lost:
		l.mu.Lock()
		defer l.mu.Unlock()
		return &ConnectionLostError{Host: l.target.display(), At: l.lostAt}
	default:
		return nil
	}
}

// close ends the link and removes its folder.
func (l *sshLink) close() error {
	l.mu.Lock()
	l.closing = true
	l.mu.Unlock()
	err := l.client.Close()
	<-l.done
	os.RemoveAll(l.dir)
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// ConnectionLostError says that the SSH link to a team host dropped. It
// wraps ErrConnectionLost.
type ConnectionLostError struct {
	// Host is the team host (user@host[:port]).
	Host string `json:"host"`
	// At is when rehome saw it drop.
	At time.Time `json:"at"`
}

// Error says which host was lost, when, and what to do.
func (e *ConnectionLostError) Error() string {
	return fmt.Sprintf("the connection to %s was lost at %s: check the network and that sshd runs there, then try again", e.Host, e.At.Format("15:04:05"))
}

// Unwrap is ErrConnectionLost.
func (e *ConnectionLostError) Unwrap() error { return ErrConnectionLost }
