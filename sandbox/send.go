package sandbox

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/containers/podman/v4/pkg/bindings/containers"

	"rehome/backend/bytesize"
)

// Files that travel: a Podman service that cannot see this machine's
// paths (another machine's, or another user's: link.Connection.FilesTravel)
// gets the inputs over the connection instead of as bind mounts. The
// order is fixed by where they go: /mnt/data is a tmpfs mounted when the
// container starts, and a copy into a running container joins its mount
// namespace (libpod's container_copy_linux.go), so the container starts
// first and its runner, told by its config to wait (await_ms), blocks the
// go signal before its hello; rehome waits for the hello, streams the
// files as a tar through Podman's archive API (PUT /containers/ID/archive,
// which the service unpacks as it reads, into the tmpfs: no copy on the
// service's disk), and sends the go (SIGUSR2). The runner then checks each
// file is a regular file of the size sent, and only then runs anything.
// Everything else about the container is the same hardened spec.

const (
	// maxSentBytes caps the inputs of one sandbox sent over a connection
	// (ChatGPT's cap on one file): they live in the container's memory
	// (its /mnt/data tmpfs) on the team host.
	maxSentBytes = 512 * MiB
	// sendLimit bounds the time the inputs take to arrive.
	sendLimit = 5 * time.Minute
	// sendGrace is the runner's margin over sendLimit for the go.
	sendGrace = 30 * time.Second
	// goSignal is the runner's go once its inputs are in (runner.py GO).
	goSignal = "SIGUSR2"
	// sentMode, sentUID and sentGID: a sent input in the container is
	// root's, readable by the sandbox user's group and no one else: the
	// code reads it but cannot write it, nor chmod it (it is not the
	// owner), as a local run's read-only mount of its private copy.
	sentMode = 0o440
	sentUID  = 0
	sentGID  = 10001
	// progressFrom is the size from which sending tells its progress.
	progressFrom = 8 * MiB
)

// sentBytes is the size of the inputs sent.
func sentBytes(ins []*input) int64 {
	var n int64
	for _, in := range ins {
		n += in.size
	}
	return n
}

// sendable checks the inputs can travel (their total under maxSentBytes)
// and returns them as staged inputs that are sent, not mounted.
func (e *Engine) sendable(ins []*input) ([]staged, error) {
	if len(ins) > 0 && !e.Host().Rootless && !e.noUserNS {
		// A rootful service gives each sandbox a user namespace of its
		// own, and Podman 4.3's archive PUT writes into the running
		// container's /mnt/data tmpfs as the host's root, which has no id
		// there: the kernel refuses every file (EOVERFLOW). Said before any
		// container exists, rather than as the service's error after.
		return nil, fmt.Errorf("%w: the Podman service on %s runs as root, and a rootful service cannot put files into the sandbox's own user namespace; connect as a normal account there (ssh://you@host/run/user/UID/podman/podman.sock: a rootless service, as docs/team-host.md sets up) — runs without input files work on this service",
			errRootfulTeamHostFiles, e.serviceName())
	}
	if n := sentBytes(ins); n > maxSentBytes {
		what := filepath.Base(ins[0].hostPath)
		if len(ins) > 1 {
			what = fmt.Sprintf("the %d files", len(ins))
		}
		return nil, fmt.Errorf("%w: %s is %s, and the sandbox on %s takes at most %s of input files (they are sent over the connection and held in its memory): give a smaller file, or a sample of it",
			errInputTooBig, what, bytesize.Format(n), e.serviceName(), bytesize.Format(maxSentBytes))
	}
	out := make([]staged, len(ins))
	for i, in := range ins {
		out[i] = staged{in: in, src: in, sent: true}
	}
	return out, nil
}

// ServiceName names the Podman service's machine in messages: the host of
// an ssh:// address, else "the Podman service at URI".
func (e *Engine) ServiceName() string { return e.serviceName() }

func (e *Engine) serviceName() string {
	uri := e.Host().ServiceURI
	if u, err := url.Parse(uri); err == nil && u.Scheme == "ssh" && u.Host != "" {
		return u.Hostname()
	}
	return "the Podman service at " + uri
}

// sendInputs waits for the runner's hello (it then holds the go blocked),
// sends the inputs into the running container's /mnt/data and gives the
// go. progress, if given, hears of big inputs once a second.
func (e *Engine) sendInputs(ctx context.Context, cid string, ins []*input, hello, ended <-chan struct{}, progress func(string)) error {
	select {
	case <-hello:
	case <-ended:
		return errors.New("the sandbox ended before it was ready for its files")
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(60 * time.Second):
		return errors.New("the sandbox did not say it was ready for its files within 60s")
	}
	sctx, cancel := context.WithTimeout(ctx, sendLimit)
	defer cancel()
	total := sentBytes(ins)
	var done atomic.Int64
	if progress != nil && total >= progressFrom {
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					progress(fmt.Sprintf("sending %s to %s: %s of %s", sentWhat(ins), e.serviceName(), bytesize.Format(done.Load()), bytesize.Format(total)))
				}
			}
		}()
	}
	pr, pw := io.Pipe()
	tarErr := make(chan error, 1)
	go func() {
		err := writeTar(pw, ins, &done)
		tarErr <- err
		pw.CloseWithError(err)
	}()
	// The tar's owners are kept (no chown to the container's user).
	put, err := containers.CopyFromArchiveWithOptions(e.api(sctx), cid, containerDataDir, pr, new(containers.CopyOptions).WithChown(false))
	if err == nil {
		err = put()
	}
	pr.CloseWithError(errors.New("the copy ended"))
	if err != nil {
		// A file that could not be read whole (it shrank) fails the
		// copy: its words, not the connection's.
		select {
		case werr := <-tarErr:
			if werr != nil && !errors.Is(werr, io.ErrClosedPipe) {
				return fmt.Errorf("send the input files to %s: %w", e.serviceName(), werr)
			}
		case <-time.After(time.Second):
		}
	}
	if err != nil && e.diedWhileSent(ended) {
		return e.errDiedWhileSent(ins)
	}
	if err != nil {
		if sctx.Err() == context.DeadlineExceeded {
			return fmt.Errorf("sending the input files to %s took longer than %s: give a smaller file or check the connection", e.serviceName(), sendLimit)
		}
		return fmt.Errorf("send the input files to %s: %w", e.serviceName(), explain(err))
	}
	if n := done.Load(); n != total {
		return fmt.Errorf("send the input files to %s: %s of %s sent (did a file change while it was sent?)", e.serviceName(), bytesize.Format(n), bytesize.Format(total))
	}
	if progress != nil && total >= progressFrom {
		progress(fmt.Sprintf("sent %s to %s: %s", sentWhat(ins), e.serviceName(), bytesize.Format(total)))
	}
	if err := containers.Kill(e.api(sctx), cid, new(containers.KillOptions).WithSignal(goSignal)); err != nil {
		// The service may take the copy whole into a container that
		// died meanwhile (it joined its mount namespace): the go then
		// finds none.
		if e.diedWhileSent(ended) {
			return e.errDiedWhileSent(ins)
		}
		return fmt.Errorf("start the code once its files were sent to %s: %w", e.serviceName(), explain(err))
	}
	return nil
}

// diedWhileSent says whether the sandbox ended (its output stream did)
// by now or within a moment: a failed copy or go is then its end's
// doing, not the connection's.
func (e *Engine) diedWhileSent(ended <-chan struct{}) bool {
	select {
	case <-ended:
		return true
	case <-time.After(2 * time.Second):
		return false
	}
}

func (e *Engine) errDiedWhileSent(ins []*input) error {
	return fmt.Errorf("the sandbox on %s ended while its files were being sent (%s): it was stopped there or ran out of memory; run it again, and if it happens again, ask whoever runs %s", e.serviceName(), sentWhat(ins), e.serviceName())
}

func sentWhat(ins []*input) string {
	if len(ins) == 1 {
		return ins[0].name
	}
	names := make([]string, len(ins))
	for i, in := range ins {
		names[i] = in.name
	}
	return strings.Join(names, ", ")
}

// writeTar writes the inputs as a tar of plain files, each read from the
// open file rehome checked (never its path again), of exactly its checked
// size; done counts the bytes written.
func writeTar(w io.Writer, ins []*input, done *atomic.Int64) error {
	tw := tar.NewWriter(w)
	now := time.Now()
	for _, in := range ins {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: in.name, Mode: sentMode, Uid: sentUID, Gid: sentGID,
			Size: in.size, ModTime: now, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		src := io.NewSectionReader(in.f, 0, in.size)
		n, err := io.Copy(tw, &sentCounter{r: src, n: done})
		if err != nil {
			return fmt.Errorf("read %s: %w", in.hostPath, err)
		}
		if n != in.size {
			return fmt.Errorf("%s shrank while it was sent", in.hostPath)
		}
	}
	return tw.Close()
}

type sentCounter struct {
	r io.Reader
	n *atomic.Int64
}

func (c *sentCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
