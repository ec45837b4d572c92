package actions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/oauth2"
)

// ChatGPT's limits on one call, which rehome keeps.
const (
	Timeout  = 45 * time.Second
	MaxChars = 100_000 // characters of the request and of the response
)

// Signer adds the credentials to a request (see Auth.Signer).
type Signer interface {
	Sign(ctx context.Context, r *http.Request) error
}

// Client makes action calls from this machine (never from the sandbox).
type Client struct {
	// AllowLocal lets the call reach this machine and its networks
	// (loopback, private, link-local, CGNAT, unique-local and metadata
	// addresses): the user's own allowance for the action, never carried
	// by an import. Checked on the address dialled, after DNS.
	AllowLocal bool
	// AirGapped refuses any address outside loopback and the private LAN
	// (the audit's air-gapped setting), checked on the address dialled.
	AirGapped bool
	// Confirmed says the user confirmed this call: a redirect is then not
	// followed (it would be another request than the one confirmed); the
	// redirect is the result, said in words.
	Confirmed bool
	// Timeout bounds one call, answer included (default: Timeout).
	Timeout time.Duration
	// Signer adds the credentials; nil sends none. They go only to the
	// host of the schema's first server, never on a redirect elsewhere.
	Signer Signer
	// Redact lists stored secrets (the action's keys and tokens) that are
	// cut out of what the API answered before it is kept, shown or fed
	// to the model; the credentials the signer sent are always cut too.
	Redact []string
	// Resolver, when set, looks the server's name up (default: the
	// system's); whatever it answers, the address dialled is checked.
	Resolver *net.Resolver
	// Transport, when set, replaces the dialling transport (tests of the
	// guards above it).
	Transport http.RoundTripper
}

// Result is one call's outcome, as the model is told it.
type Result struct {
	Operation   string `json:"operation"`
	Method      string `json:"method"`
	URL         string `json:"url"`
	Status      int    `json:"status"`
	ContentType string `json:"content_type,omitempty"`
	Body        string `json:"body"`
	// Cut says the body was cut at MaxChars; Size is what the server sent
	// when it said (Content-Length), else -1.
	Cut  bool  `json:"cut,omitempty"`
	Size int64 `json:"size"`
	// Mismatch says how a JSON answer differs from the schema's.
	Mismatch string `json:"mismatch,omitempty"`
	// Note says what rehome did with the answer (a redirect it did not
	// follow, secrets it cut out).
	Note       string `json:"note,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// Fed is what the model reads of the result.
func (r Result) Fed() string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d from %s %s\n", r.Status, r.Method, r.URL)
	if r.ContentType != "" {
		fmt.Fprintf(&b, "Content-Type: %s\n", r.ContentType)
	}
	if r.Cut {
		if r.Size > 0 {
			fmt.Fprintf(&b, "(the response was %d bytes; only its first %d characters were read)\n", r.Size, MaxChars)
		} else {
			fmt.Fprintf(&b, "(the response was longer than %d characters; only its first %d were read)\n", MaxChars, MaxChars)
		}
	}
	if r.Mismatch != "" {
		fmt.Fprintf(&b, "(the response does not match the schema: %s)\n", r.Mismatch)
	}
	if r.Note != "" {
		fmt.Fprintf(&b, "(%s)\n", r.Note)
	}
	b.WriteString("\n")
	b.WriteString(r.Body)
	return b.String()
}

// RefusedError says which guard refused a call, and why, in words.
type RefusedError struct{ Reason string }

// Error says that the call was refused, and why.
func (e *RefusedError) Error() string { return ErrRefused.Error() + ": " + e.Reason }

// Unwrap makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Unwrap() error { return ErrRefused }

func refused(format string, a ...any) error { return &RefusedError{fmt.Sprintf(format, a...)} }

// Call makes the operation id with the model's arguments (a JSON object)
// and returns the answer. A guard's refusal is a *RefusedError; an
// answer of any HTTP status is a Result, not an error.
func (c *Client) Call(ctx context.Context, s *Spec, id string, args string) (Result, error) {
	op, err := s.Operation(id)
	if err != nil {
		return Result{}, err
	}
	if s.SchemaOnly || len(s.Servers) == 0 {
		return Result{}, refused("%s is a function tool with no server: rehome has nothing to call (its schema came without an API)", id)
	}
	req, err := c.build(ctx, s, op, args)
	if err != nil {
		return Result{}, err
	}
	sg, err := c.sign(ctx, req)
	if err != nil {
		return Result{}, err
	}
	res := Result{Operation: id, Method: op.Method, URL: redact(req.URL), Size: -1}
	start := time.Now()
	defer func() { res.DurationMS = time.Since(start).Milliseconds() }()
	resp, err := c.http(s, sg).Do(req)
	if err != nil {
		return res, c.callError(op, res.URL, err)
	}
	defer resp.Body.Close()
	res.Status, res.ContentType, res.Size = resp.StatusCode, resp.Header.Get("Content-Type"), resp.ContentLength
	body, cut, err := readChars(resp.Body, MaxChars)
	if err != nil {
		if isTimeout(err) || errors.Is(err, context.DeadlineExceeded) {
			return res, fmt.Errorf("%s %s: the answer did not arrive within %s", op.Method, res.URL, c.timeout())
		}
		return res, fmt.Errorf("%s %s: reading the answer: %w", op.Method, res.URL, err)
	}
	res.Body, res.Cut = body, cut
	if !cut {
		res.Mismatch = s.checkResponse(op, resp.StatusCode, res.ContentType, body)
	}
	if loc := resp.Header.Get("Location"); resp.StatusCode/100 == 3 && loc != "" && c.Confirmed {
		res.Note = fmt.Sprintf("the server redirected this call to %s; rehome did not follow it: the call you confirmed was %s %s, and a redirect would be another request than that one. Call the new address yourself if you trust it", printable(loc, 300), op.Method, res.URL)
	}
	newRedactor(append(c.Redact, sg.values...)).result(&res)
	return res, nil
}

func (c *Client) callError(op *Operation, url string, err error) error {
	var le *LocalError
	if errors.As(err, &le) {
		return le
	}
	var re *RefusedError
	if errors.As(err, &re) {
		return re
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return fmt.Errorf("%s %s did not answer within %s: the server is slow or down; try again later", op.Method, url, c.timeout())
	}
	return fmt.Errorf("%s %s: %w", op.Method, url, err)
}

// signed is what the signer adds to a call, and where: only on requests
// to the host (and scheme) the call was built for.
type signed struct {
	scheme, host string
	header       http.Header
	values       []string // the credentials sent, for the redactor
}

// sign asks the signer for the call's credentials (an OAuth refresh goes
// out through the same dial guard) without putting them on req: the
// transport adds them to each request to req's host, and to no other.
func (c *Client) sign(ctx context.Context, req *http.Request) (*signed, error) {
	sg := &signed{scheme: req.URL.Scheme, host: req.URL.Host, header: http.Header{}}
	if c.Signer == nil {
		return sg, nil
	}
	sctx := context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Transport: c.transport(nil), Timeout: c.timeout()})
	probe, err := http.NewRequestWithContext(sctx, req.Method, req.URL.String(), nil)
	if err != nil {
		return nil, err
	}
	if err := c.Signer.Sign(sctx, probe); err != nil {
		return nil, err
	}
	sg.header = probe.Header
	for _, vs := range probe.Header {
		for _, v := range vs {
			sg.values = append(sg.values, credentialForms(v)...)
		}
	}
	return sg, nil
}

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return Timeout
}

// http is the client for one call: the timeout, the redirect guard (the
// schema's hosts only; none after a confirmation), the signing transport
// (credentials to the call's own host only) and the dial guard.
func (c *Client) http(s *Spec, sg *signed) *http.Client {
	hosts := s.Hosts()
	return &http.Client{Transport: c.transport(sg), Timeout: c.timeout(), CheckRedirect: func(r *http.Request, via []*http.Request) error {
		if c.Confirmed {
			return http.ErrUseLastResponse
		}
		if !hostIn(r.URL.Host, hosts) {
			return refused("the server redirected %s to %s, another host than the schema's servers (%s): rehome does not follow it", redact(via[0].URL), printable(r.URL.Host, 200), strings.Join(hosts, ", "))
		}
		if len(via) >= 5 {
			return refused("more than 5 redirects")
		}
		return nil
	}}
}

// transport dials with the dial guard (or is the test's Transport), and
// signs requests to the call's own host with sg.
func (c *Client) transport(sg *signed) http.RoundTripper {
	rt := c.Transport
	if rt == nil {
		d := Guard{AllowLocal: c.AllowLocal, AirGapped: c.AirGapped}.Dialer(c.Resolver)
		rt = &http.Transport{DialContext: d.DialContext, Proxy: nil, TLSHandshakeTimeout: 10 * time.Second, MaxResponseHeaderBytes: 64 << 10}
	}
	if sg != nil && len(sg.header) > 0 {
		rt = &signingTransport{base: rt, sg: sg}
	}
	return rt
}

// signingTransport adds the credentials to requests for their host: the
// first request, and a redirect back to the same scheme and host. A
// redirect to the schema's second server, or to http from https, goes
// out without them.
type signingTransport struct {
	base http.RoundTripper
	sg   *signed
}

func (t *signingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme == t.sg.scheme && strings.EqualFold(r.URL.Host, t.sg.host) {
		r = r.Clone(r.Context())
		for k, v := range t.sg.header {
			r.Header[k] = v
		}
	}
	return t.base.RoundTrip(r)
}

func hostIn(h string, hosts []string) bool {
	for _, x := range hosts {
		if strings.EqualFold(h, x) {
			return true
		}
	}
	return false
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// redact is a URL for the user and the model: no user info.
func redact(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// readChars reads up to max characters of r, and says whether there was
// more (the rest is not read).
func readChars(r io.Reader, max int) (string, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(max)*4+1))
	if err != nil {
		return "", false, err
	}
	if utf8.RuneCount(b) <= max && len(b) <= max*4 {
		return string(b), false, nil
	}
	n, i := 0, 0
	for i < len(b) && n < max {
		_, w := utf8.DecodeRune(b[i:])
		i += w
		n++
	}
	return string(b[:i]), true, nil
}

// printable is outside text for a message: no control characters, at
// most max bytes.
func printable(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	if len(s) > max {
		s = strings.ToValidUTF8(s[:max], "") + "…"
	}
	return s
}
