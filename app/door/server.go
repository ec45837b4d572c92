package door

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"time"
)

// helloWait bounds how long a client may take to say what it wants.
const helloWait = 10 * time.Second

// maxClients bounds the commands a holder runs for terminals at once.
const maxClients = 32

// Handler runs one client's command with its streams and returns the exit
// code. ctx ends when the client presses Ctrl-C or goes away.
type Handler func(ctx context.Context, req Request, s Streams) int

// Streams are a client's stdin, stdout and stderr as the holder sees them.
type Streams struct {
	Stdin          *Input
	Stdout, Stderr *Output
}

// ServeOptions configure Serve.
type ServeOptions struct {
	Holder  string       // who serves, in words ("the window", "rehome serve")
	Version string       // rehome's version: a client of another is refused
	Log     *slog.Logger // nil: discarded
}

// Serve answers the clients of ln until ctx ends or ln is closed, each in
// a goroutine of its own running h; it returns once they have all ended.
func Serve(ctx context.Context, ln *net.UnixListener, opts ServeOptions, h Handler) error {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, maxClients)
	for {
		c, err := ln.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		select {
		case slots <- struct{}{}:
		default:
			refuse(c, fmt.Sprintf("%s is running %d commands for terminals already: try again when one ends", opts.Holder, maxClients))
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			serveConn(ctx, c, opts, h)
		}()
	}
}

func refuse(c *net.UnixConn, why string) {
	c.SetWriteDeadline(time.Now().Add(time.Second))
	newWire(c).send(frameRefuse, []byte(why))
	c.Close()
}

// serveConn runs one client's command.
func serveConn(ctx context.Context, c *net.UnixConn, opts ServeOptions, h Handler) {
	defer c.Close()
	pid, err := checkPeer(c)
	if err != nil {
		opts.Log.Warn("terminal refused", "err", err)
		return // another user: not a word back
	}
	w := newWire(c)
	c.SetReadDeadline(time.Now().Add(helloWait))
	t, p, err := w.recv()
	if err != nil || t != frameHello {
		opts.Log.Warn("terminal: no request", "pid", pid, "err", err)
		return
	}
	var req Request
	if err := json.Unmarshal(p, &req); err != nil || len(req.Args) == 0 {
		refuse(c, "rehome's socket: the request is malformed")
		return
	}
	if req.Version != opts.Version {
		refuse(c, fmt.Sprintf("%s (pid %d) runs rehome %s and holds this data folder; this is rehome %s: use the same version, or close it", opts.Holder, os.Getpid(), opts.Version, req.Version))
		return
	}
	c.SetReadDeadline(time.Time{})
	acc, _ := json.Marshal(Accept{PID: os.Getpid(), Holder: opts.Holder, Version: opts.Version})
	if err := w.send(frameAccept, acc); err != nil {
		return
	}
	opts.Log.Info("terminal command", "pid", pid, "args", req.Args)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	in := &Input{w: w, tty: req.StdinTTY, replies: make(chan reply, 16), ctx: ctx}
	go in.readFrames(cancel)
	s := Streams{Stdin: in, Stdout: &Output{w: w, t: frameStdout, tty: req.StdoutTTY}, Stderr: &Output{w: w, t: frameStderr, tty: req.StderrTTY}}
	code := run(ctx, req, s, h, opts.Log)
	w.sendUint32(frameExit, uint32(int32(code)))
}

// run is h with a panic turned into a failure: a terminal's command never
// takes the window down with it.
func run(ctx context.Context, req Request, s Streams, h Handler, log *slog.Logger) (code int) {
	defer func() {
		if v := recover(); v != nil {
			log.Error("terminal command panicked", "args", req.Args, "panic", v, "stack", string(debug.Stack()))
			fmt.Fprintf(s.Stderr, "rehome: internal error: %v (the holder's log has the details)\n", v)
			code = 1
		}
	}()
	return h(ctx, req, s)
}

// Output is a client's stdout or stderr.
type Output struct {
	w   *wire
	t   byte
	tty bool
}

// Write sends p to the client's stream.
func (o *Output) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), chunk)
		if err := o.w.send(o.t, p[:k]); err != nil {
			return n, err
		}
		n += k
		p = p[k:]
	}
	return n, nil
}

// IsTerminal says whether the client's stream is a terminal.
func (o *Output) IsTerminal() bool { return o.tty }

type reply struct {
	t byte
	p []byte
}

// Input is a client's stdin: each Read asks the client for bytes, so a
// command that never reads takes nothing from the terminal.
type Input struct {
	w       *wire
	tty     bool
	ctx     context.Context
	replies chan reply

	mu      sync.Mutex
	pending int    // requests sent and not yet answered
	left    []byte // bytes of an answer not yet read
	eof     bool
}

// readFrames takes the client's frames: a cancel or a lost connection
// ends the command's context.
func (in *Input) readFrames(cancel context.CancelFunc) {
	defer cancel()
	defer close(in.replies)
	for {
		t, p, err := in.w.recv()
		if err != nil {
			return
		}
		switch t {
		case frameCancel:
			cancel()
		case frameStdin, frameEOF, frameSecret:
			select {
			case in.replies <- reply{t, p}:
			default:
				return // more answers than questions: a broken client
			}
		default:
			return
		}
	}
}

// IsTerminal says whether the client's stdin is a terminal.
func (in *Input) IsTerminal() bool { return in.tty }

// Read reads from the client's stdin.
func (in *Input) Read(p []byte) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for len(in.left) == 0 {
		if in.eof {
			return 0, io.EOF
		}
		if len(p) == 0 {
			return 0, nil
		}
		if in.pending == 0 {
			if err := in.w.sendUint32(frameRead, uint32(min(len(p), chunk))); err != nil {
				return 0, err
			}
			in.pending++
		}
		r, err := in.next()
		if err != nil {
			return 0, err
		}
		switch r.t {
		case frameEOF:
			in.eof = true
		case frameStdin:
			in.left = r.p
		}
	}
	n := copy(p, in.left)
	in.left = in.left[n:]
	return n, nil
}

// next waits for the client's next answer (in.mu held).
func (in *Input) next() (reply, error) {
	select {
	case r, ok := <-in.replies:
		if !ok {
			return reply{}, io.ErrUnexpectedEOF
		}
		in.pending--
		return r, nil
	case <-in.ctx.Done():
		return reply{}, in.ctx.Err()
	}
}

// ReadSecret reads a line the user types at the client's terminal without
// echo (a passphrase, a key), without its newline.
func (in *Input) ReadSecret() ([]byte, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.tty {
		return nil, errors.New("stdin is not a terminal")
	}
	if err := in.w.send(frameAskSecret, nil); err != nil {
		return nil, err
	}
	in.pending++
	for {
		r, err := in.next()
		if err != nil {
			return nil, err
		}
		switch r.t {
		case frameSecret:
			return r.p, nil
		case frameStdin:
			in.left = append(in.left, r.p...) // an earlier read's answer
		case frameEOF:
			in.eof = true
		}
	}
}
