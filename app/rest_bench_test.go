package app

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkAppAtRest is what the App's own Go side holds at rest: a fresh
// data folder opened as the window opens it (New, Open), 3 s to settle,
// then a GC. It reports the Go heap in use and this process's resident
// anonymous memory (file-backed pages are the binary's text); the window's
// Go process holds GTK and WebKit's UI side on top (make bench-window).
// Measured on branch door2: 3.5 MiB heap, 6–7 MiB anonymous, 41–43 MiB
// resident in all (of the window's 185 MiB Go process, issue 30).
func BenchmarkAppAtRest(b *testing.B) {
	for b.Loop() {
		h := New(Config{DataDir: b.TempDir()})
		if err := h.Open(); err != nil {
			b.Fatal(err)
		}
		time.Sleep(3 * time.Second)
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heap-MiB")
		b.ReportMetric(statusKiB(b, "RssAnon")/1024, "anon-MiB")
		b.ReportMetric(statusKiB(b, "VmRSS")/1024, "rss-MiB")
		h.Close()
	}
}

// statusKiB reads one "Name: N kB" line of /proc/self/status.
func statusKiB(b *testing.B, name string) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			n, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatalf("no %s in /proc/self/status", name)
	return 0
}
