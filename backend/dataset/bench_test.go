package dataset

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// writeCSV writes a real CSV of about size bytes: a header and rows of
// mixed types, as an export from a sales system would look.
func writeCSV(b *testing.B, dir string, size int64) string {
	b.Helper()
	path := filepath.Join(dir, fmt.Sprintf("sales-%d.csv", size))
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n, _ := w.WriteString("order_id,day,region,product,units,price,returned,comment\n")
	written := int64(n)
	for i := 0; written < size; i++ {
		n, _ := fmt.Fprintf(w, "%d,2024-%02d-%02d,%s,SKU-%05d,%d,%d.%02d,%t,\"note %d, ok\"\n",
			i, 1+i%12, 1+i%28, []string{"North", "South", "East", "West"}[i%4], i%99991, i%50, i%500, i%100, i%7 == 0, i)
		written += int64(n)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkPeek shows that a preview costs the same for a 1 MiB file and
// a 2 GiB one: it reads a bounded head and estimates the rest. The 1 MiB
// file is the baseline, measured in the same run.
//
//	go test -run '^$' -bench Peek -benchtime 20x ./backend/dataset/
func BenchmarkPeek(b *testing.B) {
	dir := b.TempDir()
	for _, c := range []struct {
		name string
		size int64
	}{{"1MiB-baseline", 1 << 20}, {"100MiB", 100 << 20}, {"2GiB", 2 << 30}} {
		path := writeCSV(b, dir, c.size)
		b.Run(c.name, func(b *testing.B) {
			var p Preview
			for b.Loop() {
				var err error
				p, err = Peek(path, Options{})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(p.ReadBytes)/(1<<20), "MiB-read")
			b.ReportMetric(float64(p.RowCount), "rows-est")
		})
		os.Remove(path)
	}
}
