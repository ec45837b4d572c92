package door

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// holderFor listens for data folder dir (the runtime folder the test's
// own) and serves h until the test ends.
func holderFor(t *testing.T, h Handler) string {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir := t.TempDir()
	ln, err := Listen(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { Serve(ctx, ln, ServeOptions{Holder: "the test", Version: "1"}, h); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return dir
}

func call(t *testing.T, dir string, stdin io.Reader, intr chan os.Signal, args ...string) (int, string, string, error) {
	t.Helper()
	c, err := Dial(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cl := Client{Stdin: stdin, Stdout: &out, Stderr: &errb, Interrupt: intr,
		ReadSecret: func() ([]byte, error) { return []byte("s3cret"), nil }}
	code, _, err := cl.Call(c, Request{Version: "1", Args: args, StdinTTY: true, StdoutTTY: true})
	return code, out.String(), errb.String(), err
}

// The streams cross both ways, stdin only as far as the command reads it,
// a secret on its own, the exit code last; a panic is a failure, not the
// holder's end.
func TestStreams(t *testing.T) {
	dir := holderFor(t, func(ctx context.Context, req Request, s Streams) int {
		switch req.Args[0] {
		case "echo":
			line := make([]byte, 5)
			io.ReadFull(s.Stdin, line)
			sec, err := s.Stdin.ReadSecret()
			fmt.Fprintf(s.Stdout, "%s|%s|%v|tty=%v", line, sec, err, s.Stdout.IsTerminal())
			fmt.Fprint(s.Stderr, strings.Repeat("e", 200<<10)) // over one frame
			return 7
		case "panic":
			panic("boom")
		}
		return 0
	})
	// The command reads 5 bytes: the rest of stdin stays unread.
	in := strings.NewReader("hello, and the rest")
	code, out, errs, err := call(t, dir, in, nil, "echo")
	if err != nil || code != 7 || out != "hello|s3cret|<nil>|tty=true" {
		t.Fatalf("echo: %d %q %v", code, out, err)
	}
	if len(errs) != 200<<10 {
		t.Fatalf("stderr: %d bytes", len(errs))
	}
	if in.Len() != len(", and the rest") {
		t.Fatalf("stdin read past what the command asked for")
	}
	code, _, errs, err = call(t, dir, nil, nil, "panic")
	if err != nil || code != 1 || !strings.Contains(errs, "internal error: boom") {
		t.Fatalf("panic: %d %q %v", code, errs, err)
	}
	if code, _, _, err = call(t, dir, nil, nil, "other"); err != nil || code != 0 {
		t.Fatalf("after the panic: %d %v", code, err)
	}
}

// Ctrl-C cancels the command's context; a second one ends the client at
// once with 130.
func TestInterrupt(t *testing.T) {
	started := make(chan struct{}, 2)
	release := make(chan struct{})
	dir := holderFor(t, func(ctx context.Context, req Request, s Streams) int {
		started <- struct{}{}
		if req.Args[0] == "stubborn" {
			<-release // ignores ctx, as a command stuck in a call might
		}
		<-ctx.Done()
		return 130
	})
	intr := make(chan os.Signal, 2)
	go func() { <-started; intr <- syscall.SIGINT }()
	if code, _, _, err := call(t, dir, nil, intr, "wait"); err != nil || code != 130 {
		t.Fatalf("after Ctrl-C: %d %v", code, err)
	}
	defer close(release)
	go func() { <-started; intr <- syscall.SIGINT; intr <- syscall.SIGINT }()
	start := time.Now()
	if code, _, _, err := call(t, dir, nil, intr, "stubborn"); err != nil || code != 130 || time.Since(start) > 5*time.Second {
		t.Fatalf("after two Ctrl-C: %d %v", code, err)
	}
}

// Another version is refused in words; no socket, or a dead one, is
// ErrNoHolder; the socket and its folder are the user's alone.
func TestRefusalsAndStale(t *testing.T) {
	dir := holderFor(t, func(context.Context, Request, Streams) int { return 0 })
	c, err := Dial(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = (&Client{}).Call(c, Request{Version: "2", Args: []string{"x"}})
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(re.Why, "runs rehome 1") {
		t.Fatalf("another version: %v", err)
	}
	sock, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "rehome", "door-*.sock"))
	st, _ := os.Stat(sock[0])
	dst, _ := os.Stat(filepath.Dir(sock[0]))
	if st.Mode().Perm() != 0o600 || dst.Mode().Perm() != 0o700 {
		t.Fatalf("socket %v, folder %v", st.Mode().Perm(), dst.Mode().Perm())
	}

	if _, err := Dial(t.TempDir()); !errors.Is(err, ErrNoHolder) {
		t.Fatalf("no holder: %v", err)
	}
	// A dead holder's socket: the file stays, nobody listens.
	other := t.TempDir()
	ln, err := Listen(other)
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := Dial(other); !errors.Is(err, ErrNoHolder) {
		t.Fatalf("stale socket: %v", err)
	}
	// The next holder replaces it.
	ln, err = Listen(other)
	if err != nil {
		t.Fatalf("listen over a stale socket: %v", err)
	}
	ln.Close()
}

// A frame over the limit ends the connection before it is read.
func TestFrameBound(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	go func() {
		newWire(b).send(frameHello, make([]byte, maxFrame+1))
		b.Close()
	}()
	if _, _, err := newWire(a).recv(); !errors.Is(err, ErrProtocol) {
		t.Fatalf("oversized frame: %v", err)
	}
}
