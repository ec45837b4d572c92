package browse

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// standInWeb is a local HTTP server on 127.0.0.1 standing in for the
// web: the fetcher under test counts its address (and only it) as public.
type standInWeb struct {
	*httptest.Server
	bigSent atomic.Int64
}

func newStandInWeb(t *testing.T, lan string) *standInWeb {
	t.Helper()
	w := &standInWeb{}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprint(rw, "User-agent: *\nDisallow: /private/\n\nUser-agent: rehome\nDisallow: /no-rehome/\nDisallow: /private/\n")
	})
	mux.HandleFunc("/page", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(rw, "<html><head><title>A &amp; B\n page</title></head><body><p>Hello from the stand-in web.</p></body></html>")
	})
	mux.HandleFunc("/to-lan", func(rw http.ResponseWriter, r *http.Request) { http.Redirect(rw, r, lan+"/page", http.StatusFound) })
	mux.HandleFunc("/to-metadata", func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/to-file", func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(rw http.ResponseWriter, r *http.Request) { http.Redirect(rw, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/big", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html")
		rw.Header().Set("Content-Length", fmt.Sprint(50<<20))
		chunk := []byte(strings.Repeat("<p>filler</p>", 1<<10))
		for sent := 0; sent < 50<<20; sent += len(chunk) {
			if _, err := rw.Write(chunk); err != nil {
				return
			}
			w.bigSent.Add(int64(len(chunk)))
		}
	})
	mux.HandleFunc("/slow", func(rw http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	mux.HandleFunc("/drip", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html")
		for i := 0; i < 300; i++ {
			if _, err := rw.Write([]byte("<p>drip</p>")); err != nil {
				return
			}
			rw.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
	mux.HandleFunc("/private/x", func(rw http.ResponseWriter, r *http.Request) { fmt.Fprint(rw, "secret") })
	mux.HandleFunc("/no-rehome/x", func(rw http.ResponseWriter, r *http.Request) { fmt.Fprint(rw, "not for rehome") })
	w.Server = httptest.NewServer(mux)
	t.Cleanup(w.Close)
	return w
}

func (w *standInWeb) public() func(netip.AddrPort) bool {
	ap := netip.MustParseAddrPort(w.Listener.Addr().String())
	return func(a netip.AddrPort) bool { return a == ap }
}

// lanServer is a server on 127.0.0.2, another loopback address: a page
// on "the LAN" as far as the fetcher is concerned.
func lanServer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("skipped: cannot listen on 127.0.0.2: %v", err)
	}
	var hits atomic.Int64
	s := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(rw, "<html><title>LAN</title>the LAN page</html>")
	})}}
	s.Start()
	t.Cleanup(s.Close)
	return s.URL, &hits
}

// The guards of open_url, attacked through a stand-in web on 127.0.0.1:
// a redirect to a LAN address (refused, then followed with the LAN
// allowed), to cloud metadata and to file: (never), a redirect loop, a
// 50 MB page (2 MB read), a slow page and a dripping one (20 s, here
// cut to a second), robots.txt, schemes other than http(s), and the
// stand-in itself once it is not counted as public.
func TestFetcherGuards(t *testing.T) {
	lan, lanHits := lanServer(t)
	web := newStandInWeb(t, lan)
	f := &Fetcher{public: web.public(), Timeout: time.Second}
	ctx := t.Context()

	p, err := f.Get(ctx, web.URL+"/page")
	if err != nil || p.ContentType != "text/html" || TitleOf(p.Body) != "A & B page" || p.Truncated {
		t.Fatalf("a page: %+v %v", p, err)
	}
	refused := func(path, says string) {
		t.Helper()
		_, err := f.Get(ctx, web.URL+path)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v, want refused saying %q", path, err, says)
		}
	}
	refused("/to-lan", "allows the LAN")
	if lanHits.Load() != 0 {
		t.Fatal("the LAN server was reached")
	}
	refused("/to-metadata", "cloud metadata address: never fetched")
	refused("/to-file", "only http and https")
	refused("/loop", "more than 5 redirects")
	refused("/private/x", "robots.txt does not allow /private/x")
	refused("/no-rehome/x", "robots.txt does not allow")
	for _, u := range []string{"file:///etc/passwd", "ftp://example.org/", "javascript:alert(1)", "http://user:pw@example.org/"} {
		if _, err := f.Get(ctx, u); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v", u, err)
		}
	}

	var start time.Time
	p, err = f.Get(ctx, web.URL+"/big")
	if err != nil || !p.Truncated || len(p.Body) != MaxPageBytes || p.Size != 50<<20 {
		t.Fatalf("the 50 MB page: %d bytes, truncated %v, size %d, %v", len(p.Body), p.Truncated, p.Size, err)
	}
	if sent := web.bigSent.Load(); sent > 16<<20 {
		t.Fatalf("the server sent %d MB of the 50 MB page: the fetch did not stop reading", sent>>20)
	}
	for _, path := range []string{"/slow", "/drip"} {
		start = time.Now()
		_, err = f.Get(ctx, web.URL+path)
		if !errors.Is(err, ErrPage) || !strings.Contains(err.Error(), "did not answer within 1s") || time.Since(start) > 5*time.Second {
			t.Fatalf("%s: %v after %s", path, err, time.Since(start))
		}
	}

	// The LAN allowed: the redirect to it is followed; metadata still not.
	lanOK := &Fetcher{public: web.public(), AllowLAN: true, Timeout: time.Second}
	if p, err := lanOK.Get(ctx, web.URL+"/to-lan"); err != nil || !strings.HasPrefix(p.URL, lan) || lanHits.Load() == 0 {
		t.Fatalf("the LAN allowed: %+v %v", p, err)
	}
	if _, err := lanOK.Get(ctx, web.URL+"/to-metadata"); !errors.Is(err, ErrRefused) {
		t.Fatalf("metadata with the LAN allowed: %v", err)
	}
	// Not counted as public, the stand-in is loopback: refused.
	plain := &Fetcher{Timeout: time.Second}
	if _, err := plain.Get(ctx, web.URL+"/page"); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "127.0.0.1 is a loopback address") {
		t.Fatalf("loopback: %v", err)
	}
	if _, err := plain.Get(ctx, "http://localhost:1/"); !errors.Is(err, ErrRefused) {
		t.Fatalf("localhost, after DNS: %v", err)
	}
}

func TestClassify(t *testing.T) {
	for addr, want := range map[string]AddrClass{
		"93.184.216.34": Public, "2606:4700::1111": Public, "8.8.8.8": Public,
		"127.0.0.1": Loopback, "127.9.9.9": Loopback, "::1": Loopback, "::ffff:127.0.0.1": Loopback,
		"10.1.2.3": Private, "172.16.0.1": Private, "172.31.255.255": Private, "192.168.1.1": Private, "100.64.0.1": Private, "fd12::1": Private,
		"169.254.1.1": LinkLocal, "fe80::1": LinkLocal,
		"169.254.169.254": Metadata, "fd00:ec2::254": Metadata, "::ffff:169.254.169.254": Metadata,
		"0.0.0.0": Unspecified, "::": Unspecified, "224.0.0.1": Multicast, "255.255.255.255": Multicast, "ff02::1": Multicast,
		"240.0.0.1": Reserved, "192.0.2.1": Reserved, "2001:db8::1": Reserved,
		"64:ff9b::7f00:1": Loopback, "64:ff9b::a00:1": Private, "2002:a9fe:a9fe::": Metadata, "172.32.0.1": Public,
	} {
		if got := Classify(netip.MustParseAddr(addr)); got != want {
			t.Errorf("%s: %s, want %s", addr, got, want)
		}
	}
	if Loopback.Allowed(false) || !Loopback.Allowed(true) || Metadata.Allowed(true) || !Public.Allowed(false) || Unspecified.Allowed(true) {
		t.Fatal("Allowed")
	}
}
