package sandbox

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"

	"github.com/containers/podman/v4/pkg/bindings"

	"rehome/backend/bytesize"

	"rehome/sandbox/link"
)

// A run's attach: the container's stdout and stderr, opened before it
// starts, on a socket of its own that can be closed from outside.

// socketSet remembers the connections of an attach so they can be closed.
type socketSet struct {
	mu    sync.Mutex
	conns []net.Conn
}

func (s *socketSet) add(c net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conns = append(s.conns, c)
}

func (s *socketSet) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
}

// attachOutput attaches to the created container cid (no terminal, no
// stdin) and copies its stdout and stderr to stdout and stderr until the
// stream ends (nil) or breaks. Once the service has answered it says so on
// ready: the container may then start, and nothing it writes is lost.
func attachOutput(api context.Context, cid string, sockets *socketSet, stdout, stderr io.Writer, ready chan<- bool) error {
	return attachStreams(api, cid, sockets, nil, stdout, stderr, ready)
}

// attachStreams is attachOutput that also copies stdin, when not nil, to
// the container's stdin (a session's requests). A copy that ends without
// an error closes the container's stdin; one that fails (the session's
// detach) leaves it open.
//
// It is the bindings' containers.Attach less two requests a run does not
// need (a new connection's ping, an inspect of the container to learn
// whether it has a terminal: rehome's never have) and with the service's
// frames bounded (demux): the bindings grow a buffer to whatever length a
// frame's header claims. The request is not cancelled by api's end:
// closing sockets, which holds its socket, ends it, whatever the service
// does.
func attachStreams(api context.Context, cid string, sockets *socketSet, stdin io.Reader, stdout, stderr io.Writer, ready chan<- bool) error {
	conn, err := bindings.GetClient(api)
	if err != nil {
		return err
	}
	tr, ok := link.PlainTransport(conn.Client.Transport)
	if !ok || tr.DialContext == nil {
		return errors.New("the Podman connection has no socket to attach on")
	}
	dial := tr.DialContext
	var sock net.Conn
	var sockMu sync.Mutex
	own := &bindings.Connection{URI: conn.URI, Client: &http.Client{Transport: link.Bounded(&http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err == nil {
				sockets.add(c)
				sockMu.Lock()
				sock = c
				sockMu.Unlock()
			}
			return c, err
		},
	})}}
	params := url.Values{"stream": {"true"}, "logs": {"false"}, "stdout": {"true"}, "stderr": {"true"}}
	if stdin != nil {
		params.Set("stdin", "true")
	}
	headers := http.Header{"Connection": {"Upgrade"}, "Upgrade": {"tcp"}}
	resp, err := own.DoRequest(context.WithoutCancel(api), nil, http.MethodPost, "/containers/%s/attach", params, headers, cid)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if !(resp.IsSuccess() || resp.IsInformational()) {
		return resp.Process(nil)
	}
	if stdin != nil {
		w, ok := resp.Body.(io.Writer)
		if !ok {
			return errors.New("the Podman service's attach stream takes no input (it did not switch protocols)")
		}
		go func() {
			if _, err := io.Copy(w, stdin); err == nil {
				sockMu.Lock()
				if cw, ok := sock.(interface{ CloseWrite() error }); ok {
					cw.CloseWrite()
				}
				sockMu.Unlock()
			}
		}()
	}
	ready <- true
	return demux(resp.Body, stdout, stderr)
}

// demux copies Podman's multiplexed stream (8-byte headers: the stream,
// three zero bytes, the length) to stdout and stderr until it ends.
func demux(r io.Reader, stdout, stderr io.Writer) error {
	var hdr [8]byte
	buf := make([]byte, 32*kiB)
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil
			}
			return err
		}
		var w io.Writer
		switch hdr[0] {
		case 0, 1:
			w = stdout
		case 2:
			w = stderr
		case 3:
			w = nil // the service's own error, as text
		default:
			return fmt.Errorf("the attach stream lost its framing (stream %d)", hdr[0])
		}
		n := int64(binary.BigEndian.Uint32(hdr[4:]))
		if n > link.MaxAttachFrame {
			return fmt.Errorf("%w: an attach frame of %s (conmon sends 8 KiB)", link.ErrAnswerTooLarge, bytesize.Format(n))
		}
		if w == nil {
			msg, _ := io.ReadAll(io.LimitReader(r, min(n, 4*kiB)))
			return fmt.Errorf("from the Podman service: %s", msg)
		}
		if _, err := io.CopyBuffer(w, io.LimitReader(r, n), buf); err != nil {
			return err
		}
	}
}
