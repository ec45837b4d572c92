package browse

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"sort"
	"testing"
	"time"

	"rehome/internal/testsupport/zimtest"
)

// benchQueries are what a user of the Python docs asks.
var benchQueries = []string{"json decoder", "asyncio event loop", "read csv file", "regular expression groups", "subprocess timeout",
	"datetime timezone", "list comprehension", "unittest mock patch", "pathlib glob", "logging handler", "thread pool executor",
	"socket timeout", "dataclass default factory", "string format", "dictionary ordering", "exception chaining"}

// BenchmarkLibrarySearch measures a search through rehome (Service.Search:
// kiwix-serve's full-text search, its RSS read, the hits cleaned) on a
// real ZIM of more than 5,000 articles — every page of the Python 3.11
// docs and each of its sections as an article of its own — against the
// baseline of the same query sent to the same kiwix-serve by hand (one
// HTTP GET, the body read), alternating which goes first, after a warm-up. It reports
// p50 and p95 of each in ms.
func BenchmarkLibrarySearch(b *testing.B) {
	zimtest.Need(b)
	zim := zimtest.Build(b, "python311-docs-sections", "Python 3.11 docs, by section", zimtest.Pages(b, "", 0), true)
	dir := b.TempDir()
	s := newServiceTB(b, dir)
	lib, err := s.Add(context.Background(), zim, AddOptions{Name: "py"})
	if err != nil {
		b.Fatal(err)
	}
	if lib.Articles < 5000 {
		b.Fatalf("the ZIM has %d articles, fewer than the 5,000 the bench needs", lib.Articles)
	}
	ctx := context.Background()
	bs, _ := books([]Library{lib})
	var kiwixURL string
	s.Kiwix.Use(ctx, bs, func(k *Kiwix) error { kiwixURL = k.URL; return nil })
	raw := func(q string) {
		v := url.Values{"content": {"py"}, "pattern": {q}, "format": {"xml"}, "pageLength": {"8"}}
		resp, err := http.Get(kiwixURL + "/search?" + v.Encode())
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	ours := func(q string) {
		res, err := s.Search(ctx, q, SearchOptions{Top: 8})
		if err != nil || len(res.Hits) == 0 {
			b.Fatalf("%q: %v %+v", q, err, res)
		}
	}
	for _, q := range benchQueries { // warm-up: the index's pages in the cache
		ours(q)
		raw(q)
	}
	var tOurs, tRaw []time.Duration
	b.ResetTimer()
	timed := func(f func(string), q string, into *[]time.Duration) {
		t0 := time.Now()
		f(q)
		*into = append(*into, time.Since(t0))
	}
	for i := 0; i < b.N; i++ {
		for j, q := range benchQueries {
			// Who goes first alternates: the second of a pair finds the
			// query's index pages warm.
			if (i+j)%2 == 0 {
				timed(ours, q, &tOurs)
				timed(raw, q, &tRaw)
			} else {
				timed(raw, q, &tRaw)
				timed(ours, q, &tOurs)
			}
		}
	}
	b.StopTimer()
	p := func(ds []time.Duration, q float64) float64 {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(p(tOurs, 0.5), "p50-ms")
	b.ReportMetric(p(tOurs, 0.95), "p95-ms")
	b.ReportMetric(p(tRaw, 0.5), "baseline-p50-ms")
	b.ReportMetric(p(tRaw, 0.95), "baseline-p95-ms")
	b.ReportMetric(float64(lib.Articles), "articles")
	b.Logf("\n| %d articles, %d searches each | p50 | p95 |\n|---|---|---|\n| rehome (Service.Search) | %.1f ms | %.1f ms |\n| kiwix-serve by hand (baseline) | %.1f ms | %.1f ms |",
		lib.Articles, len(tOurs), p(tOurs, 0.5), p(tOurs, 0.95), p(tRaw, 0.5), p(tRaw, 0.95))
}
