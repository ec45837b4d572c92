package sandbox

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/containers/podman/v4/libpod/define"
)

// The session's attach: the supervisor's frames, routed to the cell
// that waits for them, and the requests written on its stdin.

// attach opens the session's attach stream (stdin and stdout) on a
// connection of its own, and starts reading frames.
func (s *Session) attach(ctx context.Context) error {
	actx, sockets, err := s.e.attachConn(ctx)
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	outR, outW := io.Pipe()
	s.init()
	s.stdin = pw
	// Closing the attach must not end the container's stdin (conmon closes
	// it on an attach's EOF): the socket is closed under the copy, which
	// then fails with the one error the bindings take quietly.
	s.closeIO = func() {
		sockets.closeAll()
		pw.CloseWithError(define.ErrDetach)
	}
	s.attachDone = make(chan error, 1)
	errBuf := &capBuffer{max: 64 * kiB}
	ready := make(chan bool, 1)
	go func() {
		err := attachStreams(actx, s.info.Container, sockets, pr, outW, writerFunc(errBuf.write), ready)
		outW.CloseWithError(io.EOF)
		s.attachDone <- err
	}()
	go s.readFrames(outR, errBuf)
	select {
	case <-ready:
		return nil
	case err := <-s.attachDone:
		sockets.closeAll()
		if err == nil {
			err = ErrSessionEnded
		}
		s.attachDone <- err
		return fmt.Errorf("attach to the session: %w", explain(err))
	case <-time.After(30 * time.Second):
		sockets.closeAll()
		return errors.New("attach to the session: the Podman service did not answer within 30s")
	}
}

// readFrames parses the supervisor's frames and hands each to whoever
// waits for it; frames of cells this process did not send are dropped.
func (s *Session) init() {
	s.replies = map[string]chan struct{}{}
	s.hello = make(chan *helloFrame, 1)
	s.endedCh = make(chan struct{})
	s.readDone = make(chan struct{})
}

func (s *Session) readFrames(r io.Reader, errBuf *capBuffer) {
	defer close(s.readDone)
	br := bufio.NewReaderSize(r, 64<<10)
	var hdr [5]byte
	buf := make([]byte, 0, 64<<10)
	why := "the session's sandbox ended"
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			break
		}
		typ, n := hdr[0], binary.BigEndian.Uint32(hdr[1:])
		if n > 4<<20 {
			why = fmt.Sprintf("the session's output channel broke (a %q frame of %d bytes)", typ, n)
			break
		}
		buf = buf[:0]
		if cap(buf) < int(n) {
			buf = make([]byte, 0, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(br, buf); err != nil {
			break
		}
		if q := s.route(typ, buf); q != "" {
			why = q
			break
		}
	}
	if errBuf == nil {
		errBuf = &capBuffer{}
	}
	if msg := strings.TrimSpace(string(errBuf.buf)); msg != "" && !strings.Contains(why, msg) {
		why += " (" + printable(msg, 300) + ")"
	}
	s.end(why)
	io.Copy(io.Discard, br)
}

// route handles one frame; it returns why the session ended on a quit.
func (s *Session) route(typ byte, p []byte) string {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.tap != nil {
		s.tap(typ, p)
	}
	c := s.cur
	switch typ {
	case frameHello:
		var h helloFrame
		if json.Unmarshal(p, &h) == nil && h.V == protocolVersion {
			select {
			case s.hello <- &h:
			default:
			}
		}
	case frameBegin:
		var b replyFrame
		if json.Unmarshal(p, &b) == nil && c != nil && b.Nonce == c.nonce && !c.begun {
			c.begun = true
			close(c.started)
		}
	case frameStdout, frameStderr, frameFile, frameData, frameSkip:
		if c == nil || !c.begun {
			return ""
		}
		switch typ {
		case frameStdout, frameStderr:
			c.col.output(typ, p)
		case frameData:
			if err := c.col.data(p); err != nil {
				c.col.abortFile(err.Error())
			}
		default:
			if err := c.col.control(typ, p); err != nil {
				c.col.skip("output", err.Error())
			}
		}
	case frameExit:
		var x cellExit
		if json.Unmarshal(p, &x) != nil || c == nil || x.Nonce != c.nonce {
			return ""
		}
		c.col.abortFile("cut short")
		s.cur = nil
		c.exit <- &x
	case frameReply:
		var r replyFrame
		if json.Unmarshal(p, &r) == nil {
			if ch, ok := s.replies[r.Nonce]; ok {
				delete(s.replies, r.Nonce)
				close(ch)
			}
		}
	case frameQuit:
		var q quitFrame
		json.Unmarshal(p, &q)
		switch {
		case q.Refused != "":
			return "not started: " + printable(q.Refused, 200)
		case q.Reason == "idle":
			return fmt.Sprintf("the session ended after %s without a cell", roundDuration(s.info.IdleTimeout))
		}
		return "the session was stopped"
	}
	return ""
}

// end marks the session over and wakes whoever waits.
func (s *Session) end(why string) {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.ended != "" {
		return
	}
	s.ended = why
	close(s.endedCh)
}

// Ended says why the session is over, or "" while it runs.
func (s *Session) Ended() string {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	return s.ended
}

func (s *Session) send(msg map[string]any) error {
	data, err := json.Marshal(msg) // ASCII control bytes escaped: never a detach key
	if err != nil {
		return err
	}
	data = append(data, '\n')
	done := make(chan error, 1)
	go func() { _, err := s.stdin.Write(data); done <- err }()
	select {
	case err := <-done:
		return err
	case <-s.endedCh:
		return ErrSessionEnded
	case <-time.After(10 * time.Second):
		return errors.New("the session's sandbox does not read its requests")
	}
}

// control sends a request that the supervisor answers with a reply frame.
func (s *Session) control(ctx context.Context, msg map[string]any, limit time.Duration) error {
	nonce := newNonce()
	msg["nonce"] = nonce
	ch := make(chan struct{})
	defer holdIn(&s.rmu, s.replies, nonce, ch)()
	if err := s.send(msg); err != nil {
		return err
	}
	select {
	case <-ch:
		return nil
	case <-s.endedCh:
		return ErrSessionEnded
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(limit):
		return fmt.Errorf("the session did not answer %q within %s", msg["op"], limit)
	}
}

func newNonce() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
