package browse

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// serveKiwix answers every request with body, as a hostile kiwix-serve
// (or whatever took its port) would, from a real HTTP server.
func serveKiwix(t *testing.T, body []byte) *Kiwix {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return &Kiwix{URL: srv.URL}
}

// Attack: kiwix-serve's answers within their 8 MiB but of tiny elements:
// a catalog of a million `<entry/>`, each a book of its own, or of one
// entry of a million `<link/>`; a search answer of a million `<item/>`.
// Read whole, as they were, the million books allocated 1.5 GiB (the heap
// 413 MiB over its start) for the 8 MiB answer, the million links 519 MiB
// (the heap 85 MiB), the million items 812 MiB (the heap 195 MiB). Now
// the answers are decoded an element at a time: the catalog is refused
// in words at its 1001st book (16.8 MiB allocated, the answer's buffer),
// an entry's links other than its text/html one are dropped as they are
// read, and so are the items that are no hit of the book (the heap at
// most 16-19 MiB over its start, the answer read into a growing buffer).
func TestAttackKiwixAnswersOfTinyElements(t *testing.T) {
	const room = maxKiwixAnswer - len("<rss><channel></channel></rss>")
	catalog := func(k *Kiwix) (int, error) {
		books, err := k.Catalog(context.Background())
		return len(books), err
	}
	search := func(k *Kiwix) (int, error) {
		hits, err := k.Search(context.Background(), fuzzBook, "json", 5)
		return len(hits), err
	}
	hit := "<item><link>/" + fuzzBook + "/a</link></item>"
	for _, c := range []struct {
		name  string
		body  func() string
		read  func(*Kiwix) (int, error)
		books int // the books or hits read; -1: refused
	}{
		{"a catalog of a million entries", func() string { return "<feed>" + strings.Repeat("<entry/>", room/len("<entry/>")) + "</feed>" }, catalog, -1},
		{"a catalog entry of a million links", func() string {
			return "<feed><entry>" + strings.Repeat("<link/>", room/len("<link/>")) + "</entry></feed>"
		}, catalog, 1},
		{"a search answer of a million items", func() string {
			return "<rss><channel>" + hit + strings.Repeat("<item/>", (room-len(hit))/len("<item/>")) + "</channel></rss>"
		}, search, 1},
	} {
		body := []byte(c.body())
		if len(body) > maxKiwixAnswer {
			t.Fatalf("%s: %d bytes, over the %d read", c.name, len(body), maxKiwixAnswer)
		}
		k := serveKiwix(t, body)
		var n int
		var err error
		alloc, peak := measure(func() { n, err = c.read(k) })
		t.Logf("%s (%d bytes): %d read, %.1f MiB allocated, the heap at most %.1f MiB over its start; %v",
			c.name, len(body), n, float64(alloc)/(1<<20), float64(peak)/(1<<20), err)
		want := fmt.Sprintf("its catalog lists more than %d books", maxCatalogBooks)
		switch {
		case c.books < 0 && (err == nil || !errors.Is(err, ErrNoKiwix) || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %d read, error %v (want ErrNoKiwix saying %q)", c.name, n, err, want)
		case c.books >= 0 && (err != nil || n != c.books):
			t.Errorf("%s: %d read, %v", c.name, n, err)
		}
		// The heap holds the answer's bytes (read into a growing buffer)
		// and at most a thousand entries, not a million: under 4 times
		// the answer (with the collector kept close to the live heap).
		// The refused catalog stops decoding at its 1001st entry: it
		// allocates little more than the answer's buffer.
		if peak > 4*maxKiwixAnswer || (c.books < 0 && alloc > 4*maxKiwixAnswer) {
			t.Errorf("%s: reading it grew the heap by %d bytes and allocated %d, for its %d", c.name, peak, alloc, len(body))
		}
	}
}

// A catalog of exactly maxCatalogBooks books reads whole; each book's
// text/html link is its URL name, whatever other links it carries.
func TestKiwixCatalogAtItsBound(t *testing.T) {
	entry := `<entry><title>T</title><name>n</name><tags>_ftindex:yes</tags><link type="image/png" href="/x.png"/>` +
		`<link type="text/html" href="/book"/><link rel="alternate" href="/other"/></entry>`
	body := []byte("<feed>" + strings.Repeat(entry, maxCatalogBooks) + "</feed>")
	books, err := serveKiwix(t, body).Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(books) != maxCatalogBooks {
		t.Fatalf("%d books of %d", len(books), maxCatalogBooks)
	}
	if b := books[maxCatalogBooks-1]; b.URLName != "book" || b.Title != "T" || b.Name != "n" || !b.FullText {
		t.Fatalf("the last book reads as %+v", b)
	}
	_, err = serveKiwix(t, []byte("<feed>"+strings.Repeat("<entry/>", maxCatalogBooks+1)+"</feed>")).Catalog(context.Background())
	if !errors.Is(err, ErrNoKiwix) {
		t.Fatalf("a catalog of %d books: %v", maxCatalogBooks+1, err)
	}
}

// measure runs f and returns the bytes it allocated and how far the heap
// grew over its size at the start, sampled every millisecond while f runs,
// the garbage collector set to collect at 10% of growth (not 100%), so
// that the heap is close to what f holds rather than to its garbage.
func measure(f func()) (alloc, peak uint64) {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	done := make(chan struct{})
	sampled := make(chan uint64)
	go func() {
		var m runtime.MemStats
		var top uint64
		for {
			runtime.ReadMemStats(&m)
			top = max(top, m.HeapAlloc)
			select {
			case <-done:
				sampled <- top
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	top := <-sampled
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	top = max(top, after.HeapAlloc)
	if top > before.HeapAlloc {
		peak = top - before.HeapAlloc
	}
	return after.TotalAlloc - before.TotalAlloc, peak
}
