package actions

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
	"syscall"
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
	// AirGapped refuses any address outside loopback and the LAN (the
	// audit's air-gapped setting), checked on the address dialled.
	AirGapped bool
	// Timeout bounds one call, answer included (default: Timeout).
	Timeout time.Duration
	// Signer adds the credentials; nil sends none.
	Signer Signer
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
	Mismatch   string `json:"mismatch,omitempty"`
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
	if c.Signer != nil {
		// an OAuth refresh goes out through the same dial guard
		sctx := context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Transport: c.transport(), Timeout: c.timeout()})
		if err := c.Signer.Sign(sctx, req); err != nil {
			return Result{}, err
		}
	}
	res := Result{Operation: id, Method: op.Method, URL: redact(req.URL), Size: -1}
	start := time.Now()
	defer func() { res.DurationMS = time.Since(start).Milliseconds() }()
	resp, err := c.http(s).Do(req)
	if err != nil {
		var re *RefusedError
		if errors.As(err, &re) {
			return res, re
		}
		if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
			return res, fmt.Errorf("%s %s did not answer within %s: the server is slow or down; try again later", op.Method, res.URL, c.timeout())
		}
		return res, fmt.Errorf("%s %s: %w", op.Method, res.URL, err)
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
	return res, nil
}

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return Timeout
}

// http is the client for one call: the timeout, the redirect guard (the
// same host only) and the dial guard (air-gapped: loopback and the LAN).
func (c *Client) http(s *Spec) *http.Client {
	hosts := s.Hosts()
	return &http.Client{Transport: c.transport(), Timeout: c.timeout(), CheckRedirect: func(r *http.Request, via []*http.Request) error {
		if !hostIn(r.URL.Host, hosts) {
			return refused("the server redirected %s to %s, another host than the schema's servers (%s): rehome does not follow it", redact(via[0].URL), r.URL.Host, strings.Join(hosts, ", "))
		}
		if len(via) >= 5 {
			return refused("more than 5 redirects")
		}
		return nil
	}}
}

// transport dials with the air-gapped guard (or is the test's Transport).
func (c *Client) transport() http.RoundTripper {
	rt := c.Transport
	if rt == nil {
		d := &net.Dialer{Timeout: 10 * time.Second}
		if c.AirGapped {
			d.Control = func(network, address string, _ syscall.RawConn) error {
				host, _, _ := net.SplitHostPort(address)
				if ip := net.ParseIP(host); ip == nil || !local(ip) {
					return refused("the machine is air-gapped (the audit's setting) and %s is outside loopback and the LAN: rehome calls only local addresses; run the API on this machine or the LAN, or audit the assistant as online", address)
				}
				return nil
			}
		}
		rt = &http.Transport{DialContext: d.DialContext, Proxy: nil, TLSHandshakeTimeout: 10 * time.Second, MaxResponseHeaderBytes: 64 << 10}
	}
	return rt
}

func hostIn(h string, hosts []string) bool {
	for _, x := range hosts {
		if strings.EqualFold(h, x) {
			return true
		}
	}
	return false
}

// local: loopback, private (RFC 1918, fc00::/7) or link-local.
func local(ip net.IP) bool {
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast()
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// build makes the request: path parameters escaped as one segment each,
// query and header parameters, the JSON body; the URL checked to stay on
// the first server.
func (c *Client) build(ctx context.Context, s *Spec, op *Operation, args string) (*http.Request, error) {
	if n := utf8.RuneCountInString(args); n > MaxChars {
		return nil, refused("the request is %d characters, more than the %d an action may send", n, MaxChars)
	}
	in := map[string]any{}
	if strings.TrimSpace(args) != "" {
		if err := json.Unmarshal([]byte(args), &in); err != nil {
			return nil, fmt.Errorf("the arguments of %s are not a JSON object (%v): call it with {\"name\": value, …}", op.ID, err)
		}
	}
	base, _ := url.Parse(s.Servers[0])
	path := op.Path
	q := url.Values{}
	hdr := http.Header{}
	for _, p := range op.params {
		v, ok := in[p.Name]
		delete(in, p.Name)
		if !ok || v == nil {
			if p.Required {
				return nil, fmt.Errorf("%s needs the argument %q (%s)", op.ID, p.Name, p.In)
			}
			continue
		}
		str := scalar(v)
		switch p.In {
		case "path":
			if str == "" || str == "." || str == ".." || strings.ContainsAny(str, "/\\") || strings.Contains(str, "..") {
				return nil, refused("the path parameter %s is %q: a path parameter is one segment, with no / or ..", p.Name, str)
			}
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(str))
		case "query":
			q.Set(p.Name, str)
		case "header":
			if strings.ContainsAny(str, "\r\n") {
				return nil, refused("the header %s holds a line break", p.Name)
			}
			hdr.Set(p.Name, str)
		}
	}
	var body io.Reader
	if op.body {
		var v any = in
		if !op.bodyFlat {
			v = in["body"]
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if n := utf8.RuneCount(b); n > MaxChars {
			return nil, refused("the request body is %d characters, more than the %d an action may send", n, MaxChars)
		}
		body = bytes.NewReader(b)
	}
	prefix := strings.TrimRight(base.EscapedPath(), "/")
	u, err := url.Parse(base.Scheme + "://" + base.Host + prefix + path)
	if err != nil {
		return nil, refused("the address for %s does not parse: %v", op.ID, err)
	}
	u.RawQuery = q.Encode()
	if u.Host != base.Host || !strings.HasPrefix(u.EscapedPath(), prefix+"/") {
		return nil, refused("the address %s leaves the server %s", u.String(), s.Servers[0])
	}
	req, err := http.NewRequestWithContext(ctx, op.Method, u.String(), body)
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, */*;q=0.5")
	req.Header.Set("User-Agent", "rehome-actions")
	return req, nil
}

func scalar(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case float64, bool, json.Number:
		return fmt.Sprint(t)
	}
	b, _ := json.Marshal(v)
	return string(b)
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
