package browse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/temoto/robotstxt"
)

// The bounds of one page fetch.
const (
	// MaxPageBytes is how much of a page is read (the rest is left).
	MaxPageBytes = 2 << 20
	// PageTimeout bounds a whole fetch: robots.txt, redirects, the body.
	PageTimeout = 20 * time.Second
	// maxRedirects is how many redirects a fetch follows.
	maxRedirects = 5
	// maxRobots is how much of a robots.txt is read.
	maxRobots = 512 << 10
)

// UserAgent is what rehome's requests say they are (and the name
// robots.txt rules are matched against).
const UserAgent = "rehome (+https://github.com/rehome; a person's assistant reading one page)"

// robotsAgent is the product token robots.txt groups name.
const robotsAgent = "rehome"

// Page is a fetched page's bytes, bounded.
type Page struct {
	// URL is where the bytes came from, after redirects.
	URL         string
	ContentType string // the media type alone (text/html)
	Body        []byte
	// Size is the page's length when known (Content-Length), Truncated
	// whether more than MaxPageBytes came.
	Size      int64
	Truncated bool
}

// Fetcher fetches pages within the guards: http(s) only; every address
// it dials — after DNS, for the page, each redirect and robots.txt —
// classified (Classify) and refused unless public, or loopback/private/
// link-local with AllowLAN; at most maxRedirects redirects; MaxBytes
// and Timeout; robots.txt honoured.
type Fetcher struct {
	AllowLAN bool
	MaxBytes int64
	Timeout  time.Duration
	// public, in tests, counts a stand-in web's loopback address as
	// public.
	public func(netip.AddrPort) bool

	once   sync.Once
	client *http.Client
	mu     sync.Mutex
	robots map[string]robotsEntry
}

type robotsEntry struct {
	data *robotstxt.RobotsData
	err  error
	at   time.Time
}

// refusal is the dial guard's error.
type refusal struct{ words string }

func (r *refusal) Error() string { return r.words }

func (f *Fetcher) init() {
	f.once.Do(func() {
		d := &net.Dialer{Timeout: 10 * time.Second, Control: f.control}
		tr := &http.Transport{Proxy: nil, DialContext: d.DialContext, ForceAttemptHTTP2: true,
			TLSHandshakeTimeout: 10 * time.Second, ResponseHeaderTimeout: 20 * time.Second, MaxIdleConns: 4, IdleConnTimeout: 30 * time.Second}
		f.client = &http.Client{Transport: tr, CheckRedirect: f.checkRedirect}
		f.robots = map[string]robotsEntry{}
	})
}

// control runs on every dial, with the address DNS gave.
func (f *Fetcher) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &refusal{"an address rehome cannot read: " + address}
	}
	if f.public != nil && f.public(ap) {
		return nil
	}
	c := Classify(ap.Addr())
	if c.Allowed(f.AllowLAN) {
		return nil
	}
	if c == Loopback || c == Private || c == LinkLocal {
		return &refusal{fmt.Sprintf("%s is a %s address: pages on this machine or its network are fetched only when Settings → Browsing allows the LAN", ap.Addr(), c)}
	}
	return &refusal{fmt.Sprintf("%s is a %s address: never fetched", ap.Addr(), c)}
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return &refusal{fmt.Sprintf("more than %d redirects", maxRedirects)}
	}
	if err := checkScheme(req.URL); err != nil {
		return &refusal{"it redirected to " + req.URL.Redacted() + ": " + err.Error()}
	}
	return f.allowedByRobots(req.Context(), req.URL)
}

func checkScheme(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("only http and https pages are opened, not %q", u.Scheme+":")
	}
	if u.Host == "" {
		return errors.New("the address names no host")
	}
	if u.User != nil {
		return errors.New("an address with a user name or password is not opened")
	}
	return nil
}

// Get fetches raw within the guards.
func (f *Fetcher) Get(ctx context.Context, raw string) (Page, error) {
	f.init()
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return Page{}, fmt.Errorf("%w: %q is not an address", ErrRefused, raw)
	}
	if err := checkScheme(u); err != nil {
		return Page{}, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = PageTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := f.allowedByRobots(ctx, u); err != nil {
		return Page{}, f.words(ctx, u, err, timeout)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Page{}, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.8,*/*;q=0.1")
	resp, err := f.client.Do(req)
	if err != nil {
		return Page{}, f.words(ctx, u, err, timeout)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Page{}, fmt.Errorf("%w: %s answered %s", ErrPage, resp.Request.URL.Redacted(), resp.Status)
	}
	max := f.MaxBytes
	if max <= 0 {
		max = MaxPageBytes
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return Page{}, f.words(ctx, u, err, timeout)
	}
	p := Page{URL: resp.Request.URL.String(), Size: resp.ContentLength}
	if int64(len(body)) > max {
		p.Truncated, body = true, body[:max]
	}
	p.Body = body
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "" {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	p.ContentType = mt
	return p, nil
}

// words says why a fetch failed.
func (f *Fetcher) words(ctx context.Context, u *url.URL, err error, timeout time.Duration) error {
	var r *refusal
	if errors.As(err, &r) {
		return fmt.Errorf("%w: %s: %s", ErrRefused, u.Redacted(), r.words)
	}
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("%w: %s did not answer within %s", ErrPage, u.Redacted(), timeout)
	}
	return fmt.Errorf("%w: %s: %v", ErrPage, u.Redacted(), redactURL(err))
}

// allowedByRobots reads u's host's robots.txt (once an hour) and says
// whether it lets rehome fetch u: a robots.txt that is missing (4xx)
// allows everything, one that fails (5xx) or cannot be reached allows
// nothing (RFC 9309, 2.3.1).
func (f *Fetcher) allowedByRobots(ctx context.Context, u *url.URL) error {
	key := u.Scheme + "://" + u.Host
	f.mu.Lock()
	e, ok := f.robots[key]
	f.mu.Unlock()
	if !ok || time.Since(e.at) > time.Hour {
		e = robotsEntry{at: time.Now()}
		e.data, e.err = f.readRobots(ctx, key)
		var r *refusal
		if e.err == nil || !errors.As(e.err, &r) {
			f.mu.Lock()
			f.robots[key] = e
			f.mu.Unlock()
		}
	}
	if e.err != nil {
		var r *refusal
		if errors.As(e.err, &r) {
			return e.err
		}
		return &refusal{"its robots.txt could not be read (" + e.err.Error() + "), so nothing of it is fetched"}
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	if !e.data.TestAgent(path, robotsAgent) {
		return &refusal{"its robots.txt does not allow " + path + " to automated readers"}
	}
	return nil
}

func (f *Fetcher) readRobots(ctx context.Context, root string) (*robotstxt.RobotsData, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, root+"/robots.txt", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", UserAgent)
	// robots.txt's own redirects are not checked against robots.txt.
	c := *f.client
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return &refusal{"robots.txt redirected too often"}
		}
		return checkScheme(req.URL)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRobots))
	if err != nil {
		return nil, err
	}
	return robotstxt.FromStatusAndBytes(resp.StatusCode, body)
}
