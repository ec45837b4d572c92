package link

import (
	"context"
	"fmt"
	"os"
	"time"
)

// remoteURI is the team host to use: --podman ssh://…, or $CONTAINER_HOST
// when it names one and no --podman was given; "" for a local service.
func remoteURI(opts ConnectOptions) string {
	if IsRemote(opts.URI) {
		return opts.URI
	}
	if h := os.Getenv("CONTAINER_HOST"); opts.URI == "" && IsRemote(h) {
		return h
	}
	return ""
}

// OpenRemote connects to a team host's Podman service through rehome's own
// SSH link (ssh_forward.go).
func OpenRemote(ctx context.Context, uri string, opts ConnectOptions) (*Connection, error) {
	l, err := dialSSH(ctx, uri, opts)
	if err != nil {
		return nil, err
	}
	cctx, err := dial(ctx, l.uri())
	if err != nil {
		l.close()
		return nil, fmt.Errorf("cannot reach the Podman service at %s: %w", uri, err)
	}
	// The forwarded socket is served by this uid, but the service is
	// another machine's: its files must travel.
	return &Connection{URI: uri, Remote: true, FilesTravel: true, link: l, ctx: cctx}, nil
}

// Local is the address the bindings dial: the service's own, or for a
// team host the private local socket of rehome's SSH link to it.
func (c *Connection) Local() string {
	if c.link != nil {
		return c.link.uri()
	}
	return c.URI
}

// Lost is a *ConnectionLostError once the link to a team host dropped,
// else nil (always nil for a local service).
func (c *Connection) Lost() error {
	if c == nil || c.link == nil {
		return nil
	}
	return c.link.lostErr()
}

// LostSettle is how long a run whose stream ended early waits for the
// link to say whether it dropped.
const LostSettle = 2 * time.Second

// LostWithin is Lost once the link said within d whether it dropped (the
// SSH connection ended, or answered a keepalive), else nil.
func (c *Connection) LostWithin(d time.Duration) error {
	if c == nil || c.link == nil {
		return nil
	}
	l := c.link
	answered := make(chan struct{})
	go func() {
		if _, _, err := l.client.SendRequest("keepalive@openssh.com", true, nil); err == nil {
			close(answered)
		}
	}()
	select {
	case <-l.lost:
	case <-l.done:
	case <-answered:
	case <-time.After(d):
	}
	return l.lostErr()
}

// Host is the team host as the user names it (user@host[:port]), "" for a
// local service.
func (c *Connection) Host() string {
	if c == nil || c.link == nil {
		return ""
	}
	return c.link.target.display()
}
