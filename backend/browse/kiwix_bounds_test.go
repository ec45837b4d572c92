package browse

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// serveCatalog answers every request with body, as a hostile kiwix-serve
// (or whatever took its port) would, from a real HTTP server.
func serveCatalog(t *testing.T, body []byte) *Kiwix {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/atom+xml")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return &Kiwix{URL: srv.URL}
}

// tinyCatalog is an OPDS feed of n entries of 8 bytes each.
func tinyCatalog(n int) []byte {
	return []byte("<feed>" + strings.Repeat("<entry/>", n) + "</feed>")
}

// Attack: kiwix-serve's catalog within its 8 MiB but of tiny elements: a
// million `<entry/>`, each a book of its own, or one entry of a million
// `<link/>`. Read whole, as it was, the million books allocated 1.5 GiB
// (the heap 473 MiB over its start) for the 8 MiB answer, the million
// links 519 MiB (the heap 164 MiB). Now the catalog is refused in words
// at its 1001st book (16.8 MiB allocated, the answer's buffer), and an
// entry's links other than its text/html one are dropped as they are
// read (the heap 37-44 MiB over its start).
func TestAttackKiwixCatalogOfTinyEntries(t *testing.T) {
	const room = maxKiwixAnswer - len("<feed><entry></entry></feed>")
	for _, c := range []struct {
		name  string
		body  []byte
		books int // -1: refused
	}{
		{"a million entries", tinyCatalog(room / len("<entry/>")), -1},
		{"an entry of a million links", []byte("<feed><entry>" + strings.Repeat("<link/>", room/len("<link/>")) + "</entry></feed>"), 1},
	} {
		if len(c.body) > maxKiwixAnswer {
			t.Fatalf("%s: %d bytes, over the %d read", c.name, len(c.body), maxKiwixAnswer)
		}
		k := serveCatalog(t, c.body)
		var books []BookInfo
		var err error
		alloc, peak := measure(func() { books, err = k.Catalog(context.Background()) })
		t.Logf("%s (%d bytes): %d books, %.1f MiB allocated, the heap at most %.1f MiB over its start; %v",
			c.name, len(c.body), len(books), float64(alloc)/(1<<20), float64(peak)/(1<<20), err)
		want := fmt.Sprintf("its catalog lists more than %d books", maxCatalogBooks)
		switch {
		case c.books < 0 && (err == nil || !errors.Is(err, ErrNoKiwix) || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: read as %d books, error %v (want ErrNoKiwix saying %q)", c.name, len(books), err, want)
		case c.books >= 0 && (err != nil || len(books) != c.books):
			t.Errorf("%s: %d books, %v", c.name, len(books), err)
		}
		// The heap holds the answer's bytes (read into a growing buffer)
		// and at most a thousand entries, not a million: under 8 times
		// the answer, the garbage of decoding a million elements included
		// (at the collector's default pace). The refused catalog stops
		// decoding at its 1001st entry: it allocates little more than the
		// answer's buffer.
		if peak > 8*maxKiwixAnswer || (c.books < 0 && alloc > 4*maxKiwixAnswer) {
			t.Errorf("%s: reading the catalog grew the heap by %d bytes and allocated %d, for its %d", c.name, peak, alloc, len(c.body))
		}
	}
}

// A catalog of exactly maxCatalogBooks books reads whole; each book's
// text/html link is its URL name, whatever other links it carries.
func TestKiwixCatalogAtItsBound(t *testing.T) {
	entry := `<entry><title>T</title><name>n</name><tags>_ftindex:yes</tags><link type="image/png" href="/x.png"/>` +
		`<link type="text/html" href="/book"/><link rel="alternate" href="/other"/></entry>`
	body := []byte("<feed>" + strings.Repeat(entry, maxCatalogBooks) + "</feed>")
	books, err := serveCatalog(t, body).Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(books) != maxCatalogBooks {
		t.Fatalf("%d books of %d", len(books), maxCatalogBooks)
	}
	if b := books[maxCatalogBooks-1]; b.URLName != "book" || b.Title != "T" || b.Name != "n" || !b.FullText {
		t.Fatalf("the last book reads as %+v", b)
	}
	_, err = serveCatalog(t, tinyCatalog(maxCatalogBooks+1)).Catalog(context.Background())
	if !errors.Is(err, ErrNoKiwix) {
		t.Fatalf("a catalog of %d books: %v", maxCatalogBooks+1, err)
	}
}

// measure runs f and returns the bytes it allocated and how far the heap
// grew over its size at the start, sampled every millisecond while f runs
// (the garbage collector at its default pace).
func measure(f func()) (alloc, peak uint64) {
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
