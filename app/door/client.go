package door

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

// Client is the terminal's side of one command.
type Client struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// ReadSecret reads a line from the terminal without echo; nil: the
	// holder's question is answered with an empty line.
	ReadSecret func() ([]byte, error)
	// Interrupt delivers Ctrl-C and SIGTERM: the first is passed on (the
	// command stops and cleans up), a second ends the client at once with
	// code 130.
	Interrupt <-chan os.Signal
}

// Call sends req to the holder on c, carries the streams and the
// interrupts until the command ends, and returns its exit code and who ran
// it. An error before the holder accepted (a *RefusedError among them)
// means the command did not run.
func (cl *Client) Call(c *net.UnixConn, req Request) (int, Accept, error) {
	defer c.Close()
	w := newWire(c)
	hello, err := json.Marshal(req)
	if err != nil {
		return 0, Accept{}, err
	}
	c.SetDeadline(time.Now().Add(helloWait))
	if err := w.send(frameHello, hello); err != nil {
		return 0, Accept{}, err
	}
	t, p, err := w.recv()
	if err != nil {
		return 0, Accept{}, fmt.Errorf("rehome's socket: no answer from the holder: %w", err)
	}
	var acc Accept
	switch t {
	case frameRefuse:
		return 0, Accept{}, &RefusedError{Why: string(p)}
	case frameAccept:
		if err := json.Unmarshal(p, &acc); err != nil {
			return 0, Accept{}, fmt.Errorf("%w: %v", ErrProtocol, err)
		}
	default:
		return 0, Accept{}, fmt.Errorf("%w: frame %q before the answer", ErrProtocol, t)
	}
	c.SetDeadline(time.Time{})
	code, err := cl.carry(w, acc)
	return code, acc, err
}

// exitInterrupted is the code of a command a second Ctrl-C ended.
const exitInterrupted = 130

// carry runs the accepted command's streams until its exit frame.
func (cl *Client) carry(w *wire, acc Accept) (int, error) {
	asks := make(chan reply, 16) // the holder's reads, answered in order
	defer close(asks)
	go cl.answer(w, asks)
	type frame struct {
		t   byte
		p   []byte
		err error
	}
	frames := make(chan frame)
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		for {
			t, p, err := w.recv()
			select {
			case frames <- frame{t, p, err}:
			case <-quit:
				return
			}
			if err != nil || t == frameExit {
				return
			}
		}
	}()
	interrupts := 0
	for {
		select {
		case <-cl.Interrupt:
			interrupts++
			if interrupts > 1 {
				w.c.Close() // the holder sees the client go and cancels too
				return exitInterrupted, nil
			}
			w.send(frameCancel, nil)
		case f := <-frames:
			if f.err != nil {
				return 0, fmt.Errorf("%s (pid %d) went away during the command: %w", acc.Holder, acc.PID, f.err)
			}
			switch f.t {
			case frameStdout:
				cl.Stdout.Write(f.p)
			case frameStderr:
				cl.Stderr.Write(f.p)
			case frameRead, frameAskSecret:
				select {
				case asks <- reply{f.t, f.p}:
				default:
					return 0, fmt.Errorf("%w: too many reads at once", ErrProtocol)
				}
			case frameExit:
				n, err := uint32Of(f.p)
				if err != nil {
					return 0, err
				}
				return int(int32(n)), nil
			default:
				return 0, fmt.Errorf("%w: frame %q", ErrProtocol, f.t)
			}
		}
	}
}

// answer reads stdin (or a secret) for each of the holder's reads.
func (cl *Client) answer(w *wire, asks <-chan reply) {
	buf := make([]byte, chunk)
	for a := range asks {
		if a.t == frameAskSecret {
			var line []byte
			if cl.ReadSecret != nil {
				line, _ = cl.ReadSecret()
			}
			w.send(frameSecret, line)
			continue
		}
		n, err := uint32Of(a.p)
		if err != nil || cl.Stdin == nil {
			w.send(frameEOF, nil)
			continue
		}
		k, err := cl.Stdin.Read(buf[:min(int(n), len(buf))])
		switch {
		case k > 0:
			w.send(frameStdin, buf[:k])
		case err != nil:
			w.send(frameEOF, nil)
		default:
			w.send(frameStdin, nil)
		}
	}
}
