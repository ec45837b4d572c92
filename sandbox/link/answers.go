package link

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/containers/podman/v4/pkg/bindings"

	"rehome/backend/bytesize"
)

// A Podman service is outside rehome: on a team host it is someone else's
// machine. Every answer it gives is bounded here, once, on the bindings'
// HTTP client of every connection rehome opens (NewBindings): its
// headers, its body's size and the time it takes. The bindings read a
// whole answer into memory before they decode it (info, inspect, create,
// list, every error), so an unbounded answer is unbounded memory.
const (
	// MaxAnswerBytes is the most one answer of the service may hold: an
	// info or an inspect is a few KiB, a list of every container a few
	// MiB.
	MaxAnswerBytes = 16 << 20
	// MaxErrorAnswerBytes is the most an error answer (status ≥ 300) may
	// hold, on any call, streams included: an error is a sentence.
	MaxErrorAnswerBytes = 1 << 20
	// maxAnswerHeaderBytes bounds an answer's status line and headers.
	maxAnswerHeaderBytes = 256 << 10
	// MaxAttachFrame is the most one frame of an attach stream may
	// claim: conmon sends frames of 8 KiB.
	MaxAttachFrame = 1 << 20
)

// AnswerTime bounds the reading of an answer's body once its headers
// came, and a quick question's (a GET that is not a stream) whole answer.
// A variable so that a test can shorten it.
var AnswerTime = 60 * time.Second

// NewBindings is bindings.NewConnection with every later answer bounded.
// The bindings' own ping is not (it reads no body; its headers are bounded
// by net/http's default of 10 MiB and the dial's 15 s).
func NewBindings(ctx context.Context, uri string) (context.Context, error) {
	c, err := bindings.NewConnection(ctx, uri)
	if err != nil {
		return nil, err
	}
	client, err := bindings.GetClient(c)
	if err != nil {
		return nil, err
	}
	client.Client.Transport = Bounded(client.Client.Transport)
	return c, nil
}

// Bounded wraps a transport so that its answers are bounded.
func Bounded(rt http.RoundTripper) http.RoundTripper {
	if _, ok := rt.(*boundedTransport); ok {
		return rt
	}
	if tr, ok := rt.(*http.Transport); ok {
		tr.MaxResponseHeaderBytes = maxAnswerHeaderBytes
	}
	return &boundedTransport{base: rt}
}

// PlainTransport is the *http.Transport under a connection's client (the
// attach paths dial its sockets themselves).
func PlainTransport(rt http.RoundTripper) (*http.Transport, bool) {
	if b, ok := rt.(*boundedTransport); ok {
		rt = b.base
	}
	tr, ok := rt.(*http.Transport)
	return tr, ok
}

// boundedTransport bounds every answer of the service (see the consts).
type boundedTransport struct{ base http.RoundTripper }

// isStream says whether a request's answer is a stream whose reader bounds
// what it keeps itself: an attach (demuxed into capped buffers), an image
// export (written to a file), logs and events. A container's wait is not
// a stream, but takes as long as the container runs.
func isStream(r *http.Request) (stream, long bool) {
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/attach"), strings.HasSuffix(p, "/images/export"), strings.HasSuffix(p, "/get"),
		strings.HasSuffix(p, "/logs"), strings.HasSuffix(p, "/events"), strings.HasSuffix(p, "/start") && strings.Contains(p, "/exec/"),
		strings.HasSuffix(p, "/archive") && r.Method == http.MethodGet:
		return true, true
	case strings.HasSuffix(p, "/wait"):
		return false, true
	}
	return false, r.Method != http.MethodGet
}

// RoundTrip sends the request; the answer's body is capped, and a quick
// question's answer (a GET) must come whole within AnswerTime.
func (t *boundedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	stream, long := isStream(r)
	ctx, cancel := context.WithCancel(r.Context())
	var timer *time.Timer
	if !long {
		timer = time.AfterFunc(AnswerTime, cancel)
	}
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		cancel()
		if timer != nil && !timer.Stop() {
			return nil, fmt.Errorf("the Podman service did not answer %s %s within %s", r.Method, shortPath(r), AnswerTime)
		}
		return nil, err
	}
	limit := int64(MaxAnswerBytes)
	switch {
	case resp.StatusCode >= 300:
		limit = MaxErrorAnswerBytes
	case resp.StatusCode == http.StatusSwitchingProtocols:
		rw, ok := resp.Body.(io.ReadWriteCloser) // an attach: demux bounds it
		if !ok {
			cancel()
			return nil, fmt.Errorf("the Podman service switched protocols on %s with no stream", shortPath(r))
		}
		resp.Body = &cancelRWBody{ReadWriteCloser: rw, cancel: cancel}
		return resp, nil
	case stream:
		resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
		return resp, nil
	}
	if timer == nil { // a long call: its body must come within AnswerTime
		timer = time.AfterFunc(AnswerTime, cancel)
	}
	resp.Body = &cappedBody{body: resp.Body, left: limit + 1, limit: limit, cancel: cancel, timer: timer, what: r.Method + " " + shortPath(r)}
	return resp, nil
}

// shortPath is the request's path without the API version prefix.
func shortPath(r *http.Request) string {
	p := r.URL.Path
	if i := strings.Index(p, "/libpod/"); i >= 0 {
		p = p[i+len("/libpod"):]
	}
	return p
}

// cancelBody ends the request's context when the body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error { err := b.ReadCloser.Close(); b.cancel(); return err }

// cancelRWBody is cancelBody for a connection that switched protocols.
type cancelRWBody struct {
	io.ReadWriteCloser
	cancel context.CancelFunc
}

func (b *cancelRWBody) Close() error { err := b.ReadWriteCloser.Close(); b.cancel(); return err }

// cappedBody is an answer's body that refuses to be read past its bound
// or past its time.
type cappedBody struct {
	body   io.ReadCloser
	left   int64
	limit  int64
	cancel context.CancelFunc
	timer  *time.Timer
	what   string
	once   sync.Once
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, b.tooLarge()
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.body.Read(p)
	b.left -= int64(n)
	if b.left <= 0 { // one byte past the bound
		return n - 1, b.tooLarge()
	}
	if err != nil && err != io.EOF && !b.timer.Stop() {
		return n, fmt.Errorf("the Podman service's answer to %s did not come within %s", b.what, AnswerTime)
	}
	return n, err
}

func (b *cappedBody) tooLarge() error {
	b.Close()
	return fmt.Errorf("%w: its answer to %s was more than %s", ErrAnswerTooLarge, b.what, bytesize.Format(b.limit))
}

func (b *cappedBody) Close() error {
	var err error
	b.once.Do(func() {
		b.timer.Stop()
		err = b.body.Close()
		b.cancel()
	})
	return err
}

// IsBounded reports whether rt bounds the service's answers (Bounded).
func IsBounded(rt http.RoundTripper) bool {
	_, ok := rt.(*boundedTransport)
	return ok
}
