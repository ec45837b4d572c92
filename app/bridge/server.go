package bridge

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net"
	"net/http"
	"slices"

	"rehome/app"
	"strings"
	"sync"
	"time"
)

// TokenCookie carries the per-start token after the first page load.
const TokenCookie = "rehome_token"

// TokenHeader carries the token on bridge calls.
const TokenHeader = "X-Rehome-Token"

// maxCallBody bounds one call's JSON arguments.
const maxCallBody = 8 << 20

// ServerOptions configure the HTTP face of an App.
type ServerOptions struct {
	Assets fs.FS  // the built frontend (frontend/dist)
	Token  string // required on every request
	// Hosts are the Host header values accepted (host:port); any other is
	// refused, which stops DNS-rebinding pages from reaching the bridge.
	Hosts []string
}

// NewServer returns the HTTP handler of `rehome serve`: the frontend's
// files, a JSON bridge to the same methods the window binds
// (POST /api/call/<Method> with a JSON array of arguments), and progress
// events as Server-Sent Events (GET /api/events).
func NewServer(a *app.App, o ServerOptions) http.Handler {
	s := &server{app: a, opts: o, calls: app.NewCalls(a), hub: newHub()}
	app.Attach(a, s.hub)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/call/{method}", s.call)
	mux.HandleFunc("GET /api/events", s.events)
	mux.Handle("POST /api/upload", NewUploadHandler(a))
	mux.Handle("GET /api/file", NewFileHandler(a))
	mux.Handle("GET /", http.FileServerFS(o.Assets))
	s.mux = mux
	return s
}

type server struct {
	app   *app.App
	opts  ServerOptions
	calls *app.Calls
	hub   *hub
	mux   *http.ServeMux
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.hostAllowed(r.Host) {
		refuse(w, "refused: unexpected Host header (open the URL that `rehome serve` printed)", http.StatusForbidden)
		return
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'")
	if strings.HasPrefix(r.URL.Path, "/api/") {
		if code, why := s.apiRefusal(r); why != "" {
			app.Logger(s.app).Warn("bridge call refused", "path", r.URL.Path, "why", why, "origin", r.Header.Get("Origin"), "site", r.Header.Get("Sec-Fetch-Site"))
			refuse(w, "refused: "+why, code)
			return
		}
		s.mux.ServeHTTP(w, r)
		return
	}
	// The printed URL carries ?token=…; trade it for a cookie and drop it
	// from the address bar.
	if t := r.URL.Query().Get("token"); t != "" && r.Method == http.MethodGet {
		if !s.tokenOK(t) {
			refuse(w, "refused: wrong token (open the URL that `rehome serve` printed)", http.StatusUnauthorized)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: TokenCookie, Value: t, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q := r.URL.Query()
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return
	}
	// The page's own files need the cookie; the API needs more (apiRefusal).
	if c, err := r.Cookie(TokenCookie); err != nil || !s.tokenOK(c.Value) {
		refuse(w, "refused: missing or wrong token (open the URL that `rehome serve` printed)", http.StatusUnauthorized)
		return
	}
	if (r.URL.Path == "/" || r.URL.Path == "/index.html") && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		s.index(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// refuse answers a refused request and closes its connection without
// reading the rest of its body: a refused client holds no slot of the
// bridge (see MaxConns) by trickling a body nobody will read.
func refuse(w http.ResponseWriter, msg string, code int) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
	http.Error(w, msg, code)
}

// apiRefusal says why an /api/ request is refused (403 for a request
// from another origin, 401 without the right token), or "" to serve it.
//
// A cookie is not enough: cookies are not bound to ports, so any page on
// another port of this machine (a dev server, a notebook) could post
// "simple" cross-origin requests that carry it. Every API request must
// come from rehome's own page: no Origin but this server's, no
// Sec-Fetch-Site of another site or port, and the token in the
// X-Rehome-Token header, which no cross-origin page can set without a
// CORS preflight this server never grants. The two GET endpoints a page
// cannot add headers to (an <img>'s /api/file, an EventSource's
// /api/events) take instead the read key (?k=), a capability derived
// from the token that reads files rehome serves and events, nothing else.
func (s *server) apiRefusal(r *http.Request) (int, string) {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return http.StatusForbidden, fmt.Sprintf("a request from another site or port (Sec-Fetch-Site: %s); rehome's API answers only the page `rehome serve` printed", site)
	}
	if o := r.Header.Get("Origin"); o != "" && !strings.EqualFold(o, "http://"+r.Host) {
		return http.StatusForbidden, fmt.Sprintf("a request from %s; rehome's API answers only its own page (http://%s)", o, r.Host)
	}
	if t := r.Header.Get(TokenHeader); t != "" {
		if s.tokenOK(t) {
			return 0, ""
		}
		return http.StatusUnauthorized, "wrong " + TokenHeader + " (open the URL that `rehome serve` printed)"
	}
	if k := r.URL.Query().Get("k"); k != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		(r.URL.Path == "/api/file" || r.URL.Path == "/api/events") {
		if subtle.ConstantTimeCompare([]byte(k), []byte(s.readKey())) == 1 {
			return 0, ""
		}
		return http.StatusUnauthorized, "wrong read key (reload the page)"
	}
	return http.StatusUnauthorized, "API calls need the " + TokenHeader + " header (a cookie alone is not enough); open the URL that `rehome serve` printed"
}

// ReadKey is the capability for GET /api/file and /api/events derived
// from a bridge token: it cannot call methods or upload.
func ReadKey(token string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("rehome read-only: /api/file and /api/events"))
	return hex.EncodeToString(m.Sum(nil))[:40]
}

func (s *server) readKey() string { return ReadKey(s.opts.Token) }

// index serves index.html with the token and read key in meta tags, for
// the page's own scripts (frontend/src/lib/api.ts). Only a page holding
// the cookie gets it, never cached, never framed; a cross-origin page can
// load it but never read it.
func (s *server) index(w http.ResponseWriter, r *http.Request) {
	page, err := fs.ReadFile(s.opts.Assets, "index.html")
	if err != nil {
		http.Error(w, "the UI is missing from this build: "+err.Error(), http.StatusInternalServerError)
		return
	}
	meta := fmt.Sprintf(`<head><meta name="rehome-token" content="%s"><meta name="rehome-read-key" content="%s">`, html.EscapeString(s.opts.Token), s.readKey())
	out := strings.Replace(string(page), "<head>", meta, 1)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if r.Method == http.MethodHead {
		return
	}
	io.WriteString(w, out)
}

func (s *server) hostAllowed(host string) bool {
	for _, h := range s.opts.Hosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

func (s *server) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.opts.Token)) == 1
}

type callReply struct {
	Result any    `json:"result"`
	Error  string `json:"error,omitempty"`
}

func (s *server) call(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("method")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(callReadTimeout))
	body, err := io.ReadAll(io.LimitReader(r.Body, maxCallBody+1))
	if err != nil || len(body) > maxCallBody {
		writeReply(w, http.StatusRequestEntityTooLarge, callReply{Error: "request too large"})
		return
	}
	if !s.calls.Has(name) { // before the arguments: a probe tells a missing method from a served one
		writeReply(w, http.StatusNotFound, callReply{Error: fmt.Sprintf("no method %q", name)})
		return
	}
	var raw []json.RawMessage
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := json.Unmarshal(body, &raw); err != nil {
			writeReply(w, http.StatusBadRequest, callReply{Error: fmt.Sprintf("%s: arguments must be a JSON array: %v", name, err)})
			return
		}
	}
	res, err := s.calls.Call(name, raw)
	switch {
	case errors.Is(err, app.ErrNoMethod):
		writeReply(w, http.StatusNotFound, callReply{Error: fmt.Sprintf("no method %q", name)})
		return
	case errors.Is(err, app.ErrBadArguments):
		writeReply(w, http.StatusBadRequest, callReply{Error: err.Error()})
		return
	}
	if err != nil {
		writeReply(w, http.StatusOK, callReply{Error: err.Error()})
		return
	}
	writeReply(w, http.StatusOK, callReply{Result: res})
}

func writeReply(w http.ResponseWriter, code int, v callReply) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// MaxEventStreams is the most event streams (GET /api/events) the bridge
// keeps at once; one more closes the oldest, whose page reconnects (an
// EventSource does). A page needs one; a flood with the read key holds
// no more than these.
const MaxEventStreams = 8

// hub fans events out to the connected event streams.
type hub struct {
	mu    sync.Mutex
	subs  map[chan []byte]chan struct{} // a stream's events → closed to end it
	order []chan []byte                 // oldest first
}

func newHub() *hub { return &hub{subs: map[chan []byte]chan struct{}{}} }

// Emit implements Emitter. A slow subscriber loses events rather than
// stalling the work that emits them.
func (h *hub) Emit(event string, payload any) {
	data, err := json.Marshal(map[string]any{"event": event, "data": payload})
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.subs {
		select {
		case c <- data:
		default:
		}
	}
}

// subscribe adds a stream, ending the oldest at MaxEventStreams; ended
// is closed when this one is ended so.
func (h *hub) subscribe() (c chan []byte, ended <-chan struct{}, cancel func()) {
	c = make(chan []byte, 256)
	end := make(chan struct{})
	h.mu.Lock()
	for len(h.order) >= MaxEventStreams {
		old := h.order[0]
		h.order = h.order[1:]
		close(h.subs[old])
		delete(h.subs, old)
	}
	h.subs[c] = end
	h.order = append(h.order, c)
	h.mu.Unlock()
	return c, end, func() {
		h.mu.Lock()
		if _, ok := h.subs[c]; ok {
			delete(h.subs, c)
			h.order = slices.DeleteFunc(h.order, func(o chan []byte) bool { return o == c })
		}
		h.mu.Unlock()
	}
}

// streams is how many event streams are open (for tests).
func (h *hub) streams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

func (s *server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	c, ended, cancel := s.hub.subscribe()
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fmt.Fprint(w, ": connected\n\n")
	fl.Flush()
	tick := time.NewTicker(20 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-ended:
			return // a newer stream took its place
		case <-tick.C:
			fmt.Fprint(w, ": keep-alive\n\n")
			fl.Flush()
		case data := <-c:
			fmt.Fprintf(w, "data: %s\n\n", data)
			fl.Flush()
		}
	}
}

// LoopbackHosts returns the Host values a browser sends for a server
// listening on addr (127.0.0.1:port → 127.0.0.1:port and localhost:port).
func LoopbackHosts(addr net.Addr) ([]string, error) {
	hosts, _, err := ServeHosts(addr, nil, "")
	return hosts, err
}

// ServeHosts returns the Host values a browser may send to a server
// listening on addr, and the base URLs that reach it, loopback first. A
// loopback address answers to itself, localhost, 127.0.0.1 and [::1]; an
// unspecified one (0.0.0.0, [::]) to every address of this machine (ips:
// its interfaces' addresses, link-local ones left out, as browsers cannot
// use them) and its hostname. Any other Host is refused, which stops
// DNS-rebinding pages.
func ServeHosts(addr net.Addr, ips []net.IP, hostname string) (hosts, urls []string, err error) {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return nil, nil, errors.New("not a TCP address")
	}
	port := fmt.Sprint(tcp.Port)
	seen := map[string]bool{}
	add := func(host string, url bool) {
		h := net.JoinHostPort(host, port)
		if seen[strings.ToLower(h)] {
			return
		}
		seen[strings.ToLower(h)] = true
		hosts = append(hosts, h)
		if url {
			urls = append(urls, "http://"+h)
		}
	}
	switch {
	case tcp.IP.IsUnspecified():
		add("127.0.0.1", true)
		add("localhost", false)
		add("::1", false)
		for _, ip := range ips {
			if ip.IsLinkLocalUnicast() || ip.IsMulticast() || ip.IsUnspecified() {
				continue
			}
			add(ip.String(), !ip.IsLoopback())
		}
		if hostname != "" && hostname != "localhost" {
			add(hostname, true)
		}
	case tcp.IP.IsLoopback():
		add(tcp.IP.String(), true)
		add("localhost", false)
		add("127.0.0.1", false)
		add("::1", false)
	default:
		add(tcp.IP.String(), true)
	}
	return hosts, urls, nil
}
