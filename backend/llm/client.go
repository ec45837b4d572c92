package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// Client calls one OpenAI-compatible server.
type Client struct {
	// BaseURL is what an OpenAI client takes: http://127.0.0.1:11434/v1.
	BaseURL string
	// APIKey is sent as a bearer token when set (local servers ignore it).
	APIKey string
	// HTTP is the client used (default: one without an overall timeout,
	// since a CPU model may stream for minutes; the context bounds it).
	HTTP *http.Client
	// IdleTimeout ends a stream that sends no event for this long
	// (default DefaultIdleTimeout); keep-alive comments do not count.
	IdleTimeout time.Duration
	// Deadline bounds one whole answer, from the request to its last
	// byte (default DefaultDeadline).
	Deadline time.Duration
}

// ServerError is an error the server reported, in a status or in the stream.
type ServerError struct {
	Status  int    // HTTP status, 0 when the error came inside the stream
	Message string // the server's words
	Body    string // the raw body or event
}

// Error says what the server reported, and whether it came mid-answer.
func (e *ServerError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("the model server answered %d: %s", e.Status, e.Message)
	}
	return "the model server reported an error mid-answer: " + e.Message
}

// NormalizeBaseURL turns what a user types (host:port, a URL with or
// without /v1, a trailing slash) into the base URL an OpenAI client takes.
func NormalizeBaseURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", errors.New("empty server URL: give one like http://127.0.0.1:11434/v1")
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("%q is not a server URL: give one like http://127.0.0.1:11434/v1", raw)
	}
	p := strings.TrimRight(u.Path, "/")
	for _, suffix := range []string{"/chat/completions", "/models"} {
		p = strings.TrimSuffix(p, suffix)
	}
	if !strings.HasSuffix(p, "/v1") {
		p += "/v1"
	}
	u.Path = p
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}

// IsLoopback reports whether the base URL names this machine.
func IsLoopback(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{}
}

func (c *Client) newRequest(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.BaseURL, "/")+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	return req, nil
}

// Model is one model a server offers.
type Model struct {
	ID      string `json:"id"`
	OwnedBy string `json:"owned_by,omitempty"`
}

// LoadingWait is how long Models waits for a server that is still
// loading its model.
const LoadingWait = 20 * time.Second

// Models lists the models the server offers (GET /v1/models). A server
// still loading its model (llama-server answers 503 "Loading model" for
// the first seconds after it starts) is asked again, for up to
// LoadingWait or until ctx ends.
func (c *Client) Models(ctx context.Context) ([]Model, error) {
	give := time.After(LoadingWait)
	for {
		ms, err := c.models(ctx)
		var se *ServerError
		if !errors.As(err, &se) || se.Status != http.StatusServiceUnavailable || !strings.Contains(strings.ToLower(se.Message), "loading") {
			return ms, err
		}
		select {
		case <-ctx.Done():
		case <-give:
		case <-time.After(200 * time.Millisecond):
			continue
		}
		return nil, fmt.Errorf("%w (the server is still loading its model: ask again when it is ready)", err)
	}
}

// call sends one request to the server's API and returns its response;
// the caller closes the body.
func (c *Client) call(ctx context.Context, method, path string, in any) (*http.Response, error) {
	req, err := c.newRequest(ctx, method, path, in)
	if err != nil {
		return nil, err
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return nil, fmt.Errorf("reach the model server at %s: %w", c.BaseURL, err)
	}
	return resp, nil
}

func (c *Client) models(ctx context.Context) ([]Model, error) {
	resp, err := c.call(ctx, http.MethodGet, "/models", nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode != http.StatusOK {
		return nil, statusError(resp.StatusCode, body)
	}
	var out struct {
		Data   []Model `json:"data"`
		Models []Model `json:"models"` // some servers answer with this key
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("the server at %s did not answer /models with JSON (is it an OpenAI-compatible server?): %v", c.BaseURL, err)
	}
	ms := out.Data
	if len(ms) == 0 {
		ms = out.Models
	}
	if ms == nil {
		ms = []Model{}
	}
	return ms, nil
}

// statusError turns an error status and body into a ServerError with the
// server's own message when it sent one.
func statusError(status int, body []byte) error {
	msg := errorMessage(body)
	if msg == "" {
		msg = strings.TrimSpace(string(body))
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return &ServerError{Status: status, Message: shortMessage(msg), Body: string(body)}
}

// MaxErrorMessage bounds a server's message as rehome shows and keeps it.
const MaxErrorMessage = 2 << 10

// shortMessage cuts a server's message to MaxErrorMessage, saying so.
func shortMessage(msg string) string {
	if len(msg) <= MaxErrorMessage {
		return msg
	}
	return cut(msg, MaxErrorMessage)
}

// errorMessage finds the message in the error shapes servers send:
// {"error":{"message":…}}, {"error":"…"}, {"message":…}, {"detail":…}.
func errorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	if len(v.Error) > 0 && string(v.Error) != "null" {
		var s string
		if json.Unmarshal(v.Error, &s) == nil {
			return s
		}
		var o struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(v.Error, &o) == nil && o.Message != "" {
			return o.Message
		}
		return string(v.Error)
	}
	if v.Message != "" {
		return v.Message
	}
	if v.Detail != nil {
		return fmt.Sprint(v.Detail)
	}
	return ""
}

// ChatStream sends req with stream on, calls onDelta with each piece as
// it arrives (it may be nil), and returns the whole answer. It fails with
// a *ServerError when the server refuses or reports an error mid-stream,
// and with an error wrapping ErrDropped when the connection ends early;
// in both cases the partial answer is returned too.
func (c *Client) ChatStream(ctx context.Context, req ChatRequest, onDelta func(Delta)) (Reply, error) {
	req.Stream = true
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	whole := newAlarm(c.Deadline, DefaultDeadline, cancel)
	defer whole.t.Stop()
	end := func(err error, idled bool, idle time.Duration) error {
		if err != nil && whole.rang.Load() {
			return fmt.Errorf("%w: it was still answering after %s, so rehome stopped waiting (a slow model on a long question: ask again allowing more time with `rehome ask --answer-timeout 1h`, with a narrower question, or with a smaller model)", ErrDeadline, whole.d)
		}
		return c.explainEnd(ctx, err, idled, idle)
	}
	hreq, err := c.newRequest(ctx, http.MethodPost, "/chat/completions", req)
	if err != nil {
		return Reply{}, err
	}
	hreq.Header.Set("Accept", "text/event-stream")
	// llama-server closes a kept-alive connection after a streamed answer
	// without saying so, and the next POST on it failed with EOF (9 of 60
	// back-to-back requests here). An idempotency key lets Go's transport
	// send the request again on a new connection when a reused one fails
	// before any answer came; an empty one is not sent on the wire.
	hreq.Header["Idempotency-Key"] = []string{}
	resp, err := c.http().Do(hreq)
	if err != nil {
		if whole.rang.Load() {
			return Reply{}, end(err, false, 0)
		}
		if ctx.Err() != nil {
			return Reply{}, ctx.Err()
		}
		return Reply{}, fmt.Errorf("reach the model server at %s: %w", c.BaseURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return Reply{}, statusError(resp.StatusCode, body)
	}
	idle := newAlarm(c.IdleTimeout, DefaultIdleTimeout, cancel)
	defer idle.t.Stop()
	tick := func() { idle.t.Reset(idle.d) }

	acc := newAccumulator(onDelta)
	// A server that ignores stream:true answers with one JSON document.
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		const most = 2*MaxReplyBytes + 64<<10 // the answer, JSON-escaped
		// Its bytes are not answer until the document is whole: the idle
		// cap counts from the headers (whitespace trickled every few
		// seconds does not hold it off).
		data, err := io.ReadAll(io.LimitReader(resp.Body, most+1))
		switch {
		case err != nil:
			err = fmt.Errorf("%w: %v", ErrDropped, err)
		case len(data) > most:
			err = tooLarge("a JSON answer", most)
		default:
			err = acc.whole(data)
		}
		return acc.reply(), end(err, idle.rang.Load(), idle.d)
	}
	err = readSSE(&wireLimit{r: resp.Body, left: MaxWireBytes}, acc, tick)
	return acc.reply(), end(err, idle.rang.Load(), idle.d)
}

// alarm calls cancel once d (def when d is not over 0) has passed and
// remembers that it rang: an answer's whole deadline, and its idle bound
// (reset by each event).
type alarm struct {
	d    time.Duration
	t    *time.Timer
	rang atomic.Bool
}

func newAlarm(d, def time.Duration, cancel func()) *alarm {
	if d <= 0 {
		d = def
	}
	a := &alarm{d: d}
	a.t = time.AfterFunc(d, func() { a.rang.Store(true); cancel() })
	return a
}

// explainEnd says why a stream ended badly: the caller's cancel, the idle
// limit, or the server.
func (c *Client) explainEnd(ctx context.Context, err error, idled bool, idle time.Duration) error {
	switch {
	case err == nil:
		return nil
	case idled:
		return fmt.Errorf("%w: it sent no answer for %s (keep-alive pings and empty events do not count: rehome waits that long for text, thinking or a tool call, then stops)", ErrDropped, idle)
	case errors.Is(err, ErrTooLarge):
		return err
	case ctx.Err() != nil:
		return context.Canceled
	}
	return err
}

// wireLimit fails with ErrTooLarge once more than left bytes were read.
type wireLimit struct {
	r    io.Reader
	left int
}

func (w *wireLimit) Read(p []byte) (int, error) {
	if w.left <= 0 {
		return 0, tooLarge("stream for one answer", MaxWireBytes)
	}
	if len(p) > w.left {
		p = p[:w.left]
	}
	n, err := w.r.Read(p)
	w.left -= n
	return n, err
}
