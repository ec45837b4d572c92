package mcphost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"rehome/backend/actions"
)

// Limits bound what a server may take and give.
type Limits struct {
	// Connect bounds the start and the handshake; Call one tool call.
	Connect, Call time.Duration
	// MaxTools is the most tools taken from one server; MaxOutput the
	// most characters of one call's result the model is given; MaxBody
	// the most bytes of one HTTP answer.
	MaxTools, MaxOutput int
	MaxBody             int64
	// AirGapped: an HTTP server is reached on loopback or the private
	// LAN only (the assistant's air-gapped audit, or Settings →
	// Browsing's air-gapped switch).
	AirGapped bool
	// Resolver, when set, looks an HTTP server's name up (default: the
	// system's); whatever it answers, the address dialled is checked.
	Resolver *net.Resolver
}

// DefaultLimits are the bounds rehome uses.
var DefaultLimits = Limits{Connect: 30 * time.Second, Call: 60 * time.Second, MaxTools: 128, MaxOutput: 100_000, MaxBody: 32 << 20}

// Conn is a connection to one server, with its tools.
type Conn struct {
	srv  Server
	lim  Limits
	cs   *mcp.ClientSession
	cmd  *exec.Cmd
	errb *tail

	mu    sync.Mutex
	tools []*mcp.Tool
	stale bool
	// Notes say what was left out of the tool list, in words.
	Notes []string
}

// Connect starts (stdio) or reaches (HTTP) s and shakes hands; dir is the
// stdio server's working folder (created, owner-only).
func Connect(ctx context.Context, s Server, dir string, lim Limits) (*Conn, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	c := &Conn{srv: s, lim: lim, errb: &tail{max: 4096}}
	var t mcp.Transport
	if s.URL != "" {
		t = &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: boundedClient(s.URL, lim), MaxRetries: -1, DisableStandaloneSSE: true}
	} else {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		path, err := exec.LookPath(s.Command[0])
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v (install it, or give its full path)", ErrBadServer, s.Command[0], err)
		}
		cmd := exec.Command(path, s.Command[1:]...)
		cmd.Dir = dir
		cmd.Env = cleanEnv(dir, s.Env)
		cmd.Stderr = c.errb
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		c.cmd = cmd
		t = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "rehome", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { c.mu.Lock(); c.stale = true; c.mu.Unlock() },
	})
	cctx, cancel := context.WithTimeout(ctx, lim.Connect)
	defer cancel()
	cs, err := client.Connect(cctx, t, nil)
	if err != nil {
		c.kill()
		return nil, c.explain("could not connect:", err)
	}
	c.cs = cs
	if _, err := c.Tools(cctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// cleanEnv is a stdio server's whole environment: PATH and LANG, HOME
// as its own folder, and what the user named; nothing of rehome's.
func cleanEnv(dir string, env []string) []string {
	out := []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "HOME=" + dir, "TMPDIR=" + dir}
	return append(out, env...)
}

// explain words err with what the server wrote to stderr last.
func (c *Conn) explain(what string, err error) error {
	detail := err.Error()
	var dns *net.DNSError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		detail = "no answer within " + c.lim.Connect.String()
	case c.srv.URL != "" && (errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(detail, "connection refused")):
		detail = "nothing answers at " + c.srv.URL + " (connection refused): start the server, or check its address and port"
	case c.srv.URL != "" && errors.As(err, &dns):
		detail = "the host name " + dns.Name + " is not known here (" + dns.Err + "): check the URL"
	}
	if s := strings.TrimSpace(c.errb.String()); s != "" {
		detail += " (it said: " + oneLine(s, 300) + ")"
	}
	return fmt.Errorf("%w: %s: %s %s", ErrBadServer, c.srv.Name, what, detail)
}

// Tools are the server's tools, at most MaxTools, listed again after the
// server said its list changed.
func (c *Conn) Tools(ctx context.Context) ([]*mcp.Tool, error) {
	c.mu.Lock()
	if c.tools != nil && !c.stale {
		defer c.mu.Unlock()
		return c.tools, nil
	}
	c.mu.Unlock()
	var tools []*mcp.Tool
	more := 0
	for t, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, c.explain("could not list its tools:", err)
		}
		if len(tools) >= c.lim.MaxTools {
			more++
			if more > 10*c.lim.MaxTools {
				break
			}
			continue
		}
		tools = append(tools, t)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tools, c.stale, c.Notes = tools, false, nil
	if more > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%s offers more than %d tools: the first %d are used, the rest left out", c.srv.Name, c.lim.MaxTools, c.lim.MaxTools))
	}
	return tools, nil
}

// Call calls tool with args (JSON) within the call bound, and gives its
// result as text, at most MaxOutput characters.
func (c *Conn) Call(ctx context.Context, tool string, args []byte) (string, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, c.lim.Call)
	defer cancel()
	var a any = map[string]any{}
	if len(bytes.TrimSpace(args)) > 0 {
		a = jsonRaw(args)
	}
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: a})
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return "", true, fmt.Errorf("%s's %s gave no answer within %s", c.srv.Name, tool, c.lim.Call)
		}
		return "", true, c.explain("the call failed:", err)
	}
	return render(res, c.lim.MaxOutput), res.IsError, nil
}

// Close ends the connection and the server's process group.
func (c *Conn) Close() error {
	var err error
	if c.cs != nil {
		err = c.cs.Close()
	}
	c.kill()
	return err
}

func (c *Conn) kill() {
	if c.cmd != nil && c.cmd.Process != nil {
		syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// PID is the stdio server's process id (0 for HTTP).
func (c *Conn) PID() int {
	if c.cmd == nil || c.cmd.Process == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// tail keeps the last max bytes written to it (a server's stderr).
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte{}, t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// boundedClient reaches only u's host (no redirect elsewhere), dials
// with the actions' dial guard, waits at most the call bound for
// headers, and reads at most MaxBody of an answer.
//
// The guard lets the dial reach this machine, the LAN and CGNAT
// (AllowNear), where an action needs the user's --allow-local: an
// action's server comes in an imported schema, so a local one could be
// someone else's probe of this machine, while an MCP server's URL is
// one the user typed (no bundle or export carries it), and a server on
// this machine is the usual case. A link-local or metadata address is
// refused still (a cloud's metadata service hands out credentials), and
// an air-gapped machine reaches loopback and the private LAN only.
func boundedClient(u string, lim Limits) *http.Client {
	g := actions.Guard{AllowNear: true, AirGapped: lim.AirGapped, What: "the MCP server",
		AirGappedBy: "the assistant's audit, or Settings → Browsing's air-gapped switch",
		Undo:        "audit the assistant as online and turn Settings → Browsing's air-gapped switch off"}
	base := &http.Transport{DialContext: g.Dialer(lim.Resolver).DialContext, Proxy: nil, TLSHandshakeTimeout: 10 * time.Second,
		ResponseHeaderTimeout: lim.Call, MaxResponseHeaderBytes: 64 << 10}
	return &http.Client{Transport: capped{base, lim.MaxBody},
		CheckRedirect: func(r *http.Request, via []*http.Request) error {
			if r.URL.Host != via[0].URL.Host {
				return fmt.Errorf("the MCP server redirected to another host (%s): refused", r.URL.Host)
			}
			return nil
		}}
}

type capped struct {
	base http.RoundTripper
	max  int64
}

func (c capped) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := c.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	res.Body = &limitBody{rc: res.Body, left: c.max}
	return res, nil
}

// limitBody fails a body past its bound rather than cutting it quietly.
type limitBody struct {
	rc   io.ReadCloser
	left int64
}

func (l *limitBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errors.New("the MCP server's answer is over the size bound (32 MiB)")
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.rc.Read(p)
	l.left -= int64(n)
	return n, err
}

func (l *limitBody) Close() error { return l.rc.Close() }
