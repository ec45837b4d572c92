package browse

import (
	"context"
	"io"
	"net/http"
	"sort"
	"testing"
	"time"

	"rehome/internal/testsupport/zimtest"
)

// readerPages are articles of the Python docs from small to the largest
// (os.html, 755 KB of HTML).
var readerPages = []string{"library/json.html", "library/csv.html", "library/datetime.html", "library/typing.html", "library/stdtypes.html", "library/os.html"}

// BenchmarkReaderOpen measures what the window's reader waits for when a
// citation chip opens an article: Service.Open (settings read, the file
// checked, kiwix-serve asked for the stored entry) and ReaderHTML (the
// links rewritten, bluemonday's allow-list), on the 5,090-article ZIM of
// BenchmarkLibrarySearch, against the baseline of the same entry fetched
// from the same kiwix-serve by hand (one GET, the body read), alternating
// which goes first. It reports p50 and p95 of each in ms.
func BenchmarkReaderOpen(b *testing.B) {
	zimtest.Need(b)
	zim := zimtest.Build(b, "python311-docs-sections", "Python 3.11 docs, by section", zimtest.Pages(b, "", 0), true)
	dir := b.TempDir()
	s := newServiceTB(b, dir)
	lib, err := s.Add(context.Background(), zim, AddOptions{Name: "py"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	bs, _ := books([]Library{lib})
	var kiwixURL string
	s.Kiwix.Use(ctx, bs, func(k *Kiwix) error { kiwixURL = k.URL; return nil })
	raw := func(p string) {
		resp, err := http.Get(kiwixURL + "/raw/py/content/" + p)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("%s: %v", p, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	ours := func(p string) {
		op, err := s.Open(ctx, ZIMURL("py", p), OpenOptions{AirGapped: true})
		if err != nil {
			b.Fatal(err)
		}
		if len(ReaderHTML("py", p, op.Body)) < 1000 {
			b.Fatalf("%s: nearly nothing to show", p)
		}
	}
	for _, p := range readerPages {
		ours(p)
		raw(p)
	}
	var tOurs, tRaw []time.Duration
	timed := func(f func(string), p string, into *[]time.Duration) {
		t0 := time.Now()
		f(p)
		*into = append(*into, time.Since(t0))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, p := range readerPages {
			if (i+j)%2 == 0 {
				timed(ours, p, &tOurs)
				timed(raw, p, &tRaw)
			} else {
				timed(raw, p, &tRaw)
				timed(ours, p, &tOurs)
			}
		}
	}
	b.StopTimer()
	q := func(ds []time.Duration, f float64) float64 {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return float64(ds[int(f*float64(len(ds)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(q(tOurs, 0.5), "p50-ms")
	b.ReportMetric(q(tOurs, 0.95), "p95-ms")
	b.ReportMetric(q(tRaw, 0.5), "baseline-p50-ms")
	b.ReportMetric(q(tRaw, 0.95), "baseline-p95-ms")
	b.Logf("\n| %d articles shown, %d opens each | p50 | p95 |\n|---|---|---|\n| rehome's reader (Service.Open + ReaderHTML) | %.1f ms | %.1f ms |\n| kiwix-serve by hand (baseline: the raw entry) | %.1f ms | %.1f ms |",
		len(readerPages), len(tOurs), q(tOurs, 0.5), q(tOurs, 0.95), q(tRaw, 0.5), q(tRaw, 0.95))
}
