package sandbox

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The relay: how a later process reaches a running session. Podman's
// attach cannot be shared: conmon closes a container's stdin for good when
// any attach of it ends. So the process that starts a session for the CLI
// (`rehome session relay`, which `rehome session start` leaves running in
// the background) holds the one attach for the session's life and serves
// a unix socket in the session's folder (mode 0600: only its user): each
// client writes requests and reads every frame, and keeps the frames of
// the cells it sent (by nonce). A client needs no Podman at all, which
// makes `rehome session exec` cheap. The session's container carries the
// relay's owner label, so if the relay dies, the next rehome sweeps it.

// relaySocket is the relay's socket in a session's folder.
func relaySocket(dir string) string { return filepath.Join(dir, "relay.sock") }

// ServeRelay serves s on its folder's socket until the session ends (and
// its container is gone). ready, if given, is called once the socket
// takes connections.
func (s *Session) ServeRelay(ready ...func()) error {
	sock := relaySocket(s.info.Dir)
	os.Remove(sock)
	l, err := net.Listen("unix", sock)
	if err != nil {
		return fmt.Errorf("serve the session: %w", err)
	}
	defer os.Remove(sock)
	os.Chmod(sock, 0o600)
	var mu sync.Mutex
	clients := map[net.Conn]bool{}
	s.rmu.Lock()
	s.tap = func(typ byte, p []byte) {
		var hdr [5]byte
		hdr[0] = typ
		binary.BigEndian.PutUint32(hdr[1:], uint32(len(p)))
		mu.Lock()
		defer mu.Unlock()
		for c := range clients {
			c.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if _, err := (&net.Buffers{hdr[:], p}).WriteTo(c); err != nil {
				c.Close()
				delete(clients, c)
			}
		}
	}
	s.rmu.Unlock()
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		<-s.endedCh
		l.Close()
		// The clients' streams end once the container is gone: a client's
		// Stop, then `session list`, never sees it running.
		if s.e != nil {
			s.e.removeSession(context.Background(), s.info.Container)
		}
		mu.Lock()
		for c := range clients {
			c.Close()
		}
		mu.Unlock()
	}()
	for _, f := range ready {
		f()
	}
	for {
		c, err := l.Accept()
		if err != nil {
			if s.Ended() != "" {
				<-closed // the container is gone, the clients told
				return nil
			}
			return err
		}
		mu.Lock()
		clients[c] = true
		mu.Unlock()
		go func() {
			defer func() {
				mu.Lock()
				delete(clients, c)
				mu.Unlock()
				c.Close()
			}()
			sc := bufio.NewScanner(c)
			sc.Buffer(make([]byte, 64<<10), 8*MaxScriptSize)
			for sc.Scan() {
				var msg map[string]any
				if json.Unmarshal(sc.Bytes(), &msg) != nil {
					return
				}
				if s.send(msg) != nil {
					return
				}
			}
		}()
	}
}

// OpenSession reaches a running session from its folder, through the
// relay of the process that started it.
func OpenSession(ctx context.Context, dir string) (*Session, error) {
	var info SessionInfo
	if err := readJSON(filepath.Join(dir, "session.json"), &info); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no session in %s: start one with `rehome session start --file F`", dir)
		}
		return nil, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", relaySocket(dir))
	if err != nil {
		return nil, fmt.Errorf("%w (its relay does not answer)", ErrSessionEnded)
	}
	s := &Session{info: info, lim: info.Limits}
	s.init()
	s.stdin = conn
	s.closeIO = func() { conn.Close() }
	go s.readFrames(conn, nil)
	if err := s.control(ctx, map[string]any{"op": "ping"}, 5*time.Second); err != nil {
		s.detach()
		return nil, err
	}
	return s, nil
}
