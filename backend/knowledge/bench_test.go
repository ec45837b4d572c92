package knowledge_test

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"rehome/backend/core"
	"rehome/backend/knowledge"
)

// The retrieval bench's corpus: Debian packages' own manuals (PDF and
// HTML), installed by build/setup.sh's test set (bzip2-doc,
// libtasn1-doc, valgrind; shared-mime-info comes with the desktop
// entry's packages).
var benchCorpus = []string{
	"/usr/share/doc/bzip2/manual.pdf.gz",
	"/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
	"/usr/share/doc/libtasn1-doc/libtasn1.pdf",
	"/usr/share/doc/valgrind/html/quick-start.html",
	"/usr/share/doc/valgrind/html/mc-manual.html",
	"/usr/share/doc/valgrind/html/cg-manual.html",
	"/usr/share/doc/valgrind/html/manual-core.html",
}

// benchQuestions are questions a user would ask, in their words, with a
// phrase only the passages that answer it hold (relevance: the passage
// contains the phrase, white space and case aside).
var benchQuestions = []struct{ q, file, phrase string }{
	{"how much memory does bzip2 need with the small option", "bzip2-manual.pdf", "decompressed in 2300k of memory"},
	{"what block size do the flags -1 to -9 choose", "bzip2-manual.pdf", "900,000 bytes (the default)"},
	{"how can I get data back from a damaged bz2 file", "bzip2-manual.pdf", "bzip2recover"},
	{"is --fast actually faster", "bzip2-manual.pdf", "doesn’t make things significantly faster"},
	{"default priority of magic rules", "shared-mime-info-spec.pdf", "default priority value is 50"},
	{"which file maps aliases to mime types", "shared-mime-info-spec.pdf", "contains a mapping from aliases to MIME types"},
	{"what does glob-deleteall do", "shared-mime-info-spec.pdf", "glob-deleteall"},
	{"default glob weight", "shared-mime-info-spec.pdf", "default weight value is"},
	{"how to run asn1Parser on a definitions file", "libtasn1.pdf", "asn1Parser reads a single file with ASN.1 definitions"},
	{"which encoding rules does libtasn1 support", "libtasn1.pdf", "Distinguished Encoding Rules (DER) encoding support"},
	{"how do I turn on the detailed memory leak detector", "quick-start.html", "--leak-check option turns on the detailed memory leak detector"},
	{"where do uninitialised values come from, extra information", "mc-manual.html", "--track-origins=yes"},
	{"what does still reachable mean in a leak summary", "mc-manual.html", "still reachable"},
	{"why compile with -g before using valgrind", "quick-start.html", "Compile your program with -g"},
	{"how does the cache simulation handle a write miss", "cg-manual.html", "when a write miss occurs"},
	{"write valgrind commentary to a file instead of stderr", "manual-core.html", "--log-file=filename"},
	{"make valgrind print suppressions for each error", "manual-core.html", "--gen-suppressions=yes"},
}

type corpus struct {
	dir   string
	svc   *knowledge.Service
	files []string
	// chunks are every chunk's text, by file, for the reference BM25.
	chunks     []refDoc
	parseTime  time.Duration
	indexTime  time.Duration
	chunkCount int
	tokenCount int
	bytes      int64
	err        error
	closeCore  func()
}

var (
	benchOnce sync.Once
	bench     corpus
)

// loadCorpus copies the manuals (a .gz unpacked), indexes them through
// the real sandbox once, and keeps the service open for the searches.
func loadCorpus(b *testing.B) *corpus {
	benchOnce.Do(func() {
		src, err := os.MkdirTemp("", "rehome-kbench-src-")
		if err != nil {
			bench.err = err
			return
		}
		for _, p := range benchCorpus {
			if _, err := os.Stat(p); err != nil {
				bench.err = fmt.Errorf("%s is missing: install bzip2-doc libtasn1-doc valgrind shared-mime-info (build/setup.sh test)", p)
				return
			}
			name := strings.TrimSuffix(filepath.Base(p), ".gz")
			if name == "manual.pdf" {
				name = "bzip2-manual.pdf"
			}
			dst := filepath.Join(src, name)
			if err := copyMaybeGz(p, dst); err != nil {
				bench.err = err
				return
			}
			st, _ := os.Stat(dst)
			bench.bytes += st.Size()
			bench.files = append(bench.files, dst)
		}
		data, _ := os.MkdirTemp("", "rehome-kbench-data-")
		c := core.New(data, core.Options{})
		if err := c.Open(); err != nil {
			bench.err = err
			return
		}
		bench.dir, bench.closeCore = data, func() { c.Close(); os.RemoveAll(data); os.RemoveAll(src) }
		bench.svc = knowledge.New(filepath.Join(data, "knowledge"), knowledge.Options{Run: c.Runs()})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		start := time.Now()
		res, err := bench.svc.Add(ctx, "bench", bench.files, nil)
		bench.parseTime = time.Since(start)
		if err != nil {
			bench.err = err
			return
		}
		for _, r := range res {
			if r.State != knowledge.StateIndexed {
				bench.err = fmt.Errorf("%s", r.Message)
				return
			}
			bench.chunkCount += r.Chunks
			bench.tokenCount += r.Tokens
		}
		// Index alone (no parsing): the chunks again into a fresh index.
		docs, err := bench.svc.Chunks("bench")
		if err != nil {
			bench.err = err
			return
		}
		for _, d := range docs {
			bench.chunks = append(bench.chunks, refDoc{file: d.File, text: d.Text})
		}
		start = time.Now()
		if err := knowledge.IndexChunks(filepath.Join(data, "reindex.bleve"), docs); err != nil {
			bench.err = err
			return
		}
		bench.indexTime = time.Since(start)
	})
	if bench.err != nil {
		if strings.Contains(bench.err.Error(), "podman") || strings.Contains(bench.err.Error(), "missing") {
			b.Skip(bench.err)
		}
		b.Fatal(bench.err)
	}
	return &bench
}

func copyMaybeGz(src, dst string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(src, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return err
		}
		r = z
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func norm(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

func relevant(file, text, wantFile, phrase string) bool {
	return file == wantFile && strings.Contains(norm(text), norm(phrase))
}

// metrics: recall@5 (a relevant passage in the top 5) and nDCG@10 with
// binary relevance, averaged over the questions.
func metrics(rank func(q string) []refDoc, all []refDoc) (recall5, ndcg10 float64) {
	for _, bq := range benchQuestions {
		got := rank(bq.q)
		rel := 0
		for _, d := range all {
			if relevant(d.file, d.text, bq.file, bq.phrase) {
				rel++
			}
		}
		dcg, idcg := 0.0, 0.0
		hit := false
		for i, d := range got {
			if i >= 10 {
				break
			}
			if relevant(d.file, d.text, bq.file, bq.phrase) {
				dcg += 1 / math.Log2(float64(i+2))
				hit = hit || i < 5
			}
		}
		for i := 0; i < min(rel, 10); i++ {
			idcg += 1 / math.Log2(float64(i+2))
		}
		if hit {
			recall5++
		}
		if idcg > 0 {
			ndcg10 += dcg / idcg
		}
	}
	n := float64(len(benchQuestions))
	return recall5 / n, ndcg10 / n
}

// BenchmarkKnowledgeRetrieval measures rehome's search (bleve BM25 over
// 800/400-token chunks with headings and pages) against a plain BM25 of
// the same chunks written here (k1 1.2, b 0.75, lower-cased words, no
// stemming, no stop words): recall@5 and nDCG@10 on the questions, the
// search latency (ns/op), the throughput of parsing in the sandbox plus
// indexing, and of indexing alone.
func BenchmarkKnowledgeRetrieval(b *testing.B) {
	needPodmanB(b)
	c := loadCorpus(b)
	ctx := context.Background()
	rehome := func(q string) []refDoc {
		hits, err := c.svc.Search(ctx, "bench", q, "", 10)
		if err != nil {
			b.Fatal(err)
		}
		out := make([]refDoc, len(hits))
		for i, h := range hits {
			out[i] = refDoc{file: h.File, text: h.Text}
		}
		return out
	}
	ref := newRefBM25(c.chunks)
	r5, n10 := metrics(rehome, c.chunks)
	br5, bn10 := metrics(func(q string) []refDoc { return ref.top(q, 10) }, c.chunks)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rehome(benchQuestions[i%len(benchQuestions)].q)
	}
	b.StopTimer()
	b.ReportMetric(r5, "recall@5")
	b.ReportMetric(n10, "nDCG@10")
	b.ReportMetric(br5, "ref-recall@5")
	b.ReportMetric(bn10, "ref-nDCG@10")
	b.ReportMetric(float64(c.chunkCount)/c.parseTime.Seconds(), "chunks/s-parse+index")
	b.ReportMetric(float64(c.chunkCount)/c.indexTime.Seconds(), "chunks/s-index")
	b.Logf("corpus: %d files (%s), %.1f MB, %d chunks, about %d tokens; %d questions",
		len(c.files), strings.Join(names(c.files), ", "), float64(c.bytes)/1e6, c.chunkCount, c.tokenCount, len(benchQuestions))
	b.Logf("| ranker | recall@5 | nDCG@10 |\n| rehome (bleve BM25, en analyzer, headings) | %.2f | %.2f |\n| plain BM25 reference | %.2f | %.2f |", r5, n10, br5, bn10)
	b.Logf("parse in the sandbox + index: %s (%.0f chunks/s); index alone: %s (%.0f chunks/s)",
		c.parseTime.Round(time.Millisecond), float64(c.chunkCount)/c.parseTime.Seconds(), c.indexTime.Round(time.Millisecond), float64(c.chunkCount)/c.indexTime.Seconds())
}

func names(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return out
}

func needPodmanB(b *testing.B) {
	if _, err := os.Stat("/usr/bin/podman"); err != nil {
		b.Skip("no podman: the corpus is parsed in the sandbox")
	}
}

// ---- the plain BM25 reference ----

type refDoc struct{ file, text string }

type refBM25 struct {
	docs  []refDoc
	terms []map[string]int
	lens  []int
	df    map[string]int
	avg   float64
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func newRefBM25(docs []refDoc) *refBM25 {
	r := &refBM25{docs: docs, df: map[string]int{}}
	total := 0
	for _, d := range docs {
		tf := map[string]int{}
		ws := words(d.text)
		for _, w := range ws {
			tf[w]++
		}
		for w := range tf {
			r.df[w]++
		}
		r.terms, r.lens = append(r.terms, tf), append(r.lens, len(ws))
		total += len(ws)
	}
	r.avg = float64(total) / float64(max(len(docs), 1))
	return r
}

func (r *refBM25) top(q string, k int) []refDoc {
	const k1, b = 1.2, 0.75
	n := float64(len(r.docs))
	type sc struct {
		i int
		s float64
	}
	var out []sc
	for i, tf := range r.terms {
		s := 0.0
		for _, w := range words(q) {
			f := float64(tf[w])
			if f == 0 {
				continue
			}
			df := float64(r.df[w])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			s += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(r.lens[i])/r.avg))
		}
		if s > 0 {
			out = append(out, sc{i, s})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].s > out[b].s })
	var docs []refDoc
	for _, s := range out[:min(k, len(out))] {
		docs = append(docs, r.docs[s.i])
	}
	return docs
}
