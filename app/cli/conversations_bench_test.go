package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"rehome/internal/testsupport/peakrss"
	"strings"
	"testing"
	"time"
)

// writeLargeExport writes a conversations.json of n conversations shaped
// as ChatGPT writes them (a root, a hidden system message, questions and
// answers, Code Interpreter cells with their output, a regenerated answer
// in one of four, a GPT in one of three), streamed to disk; it returns
// its size.
func writeLargeExport(tb testing.TB, path string, n, exchanges int) int64 {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	words := strings.Repeat("The quarterly series rises, then falls back as the model predicted. ", 20)
	node := func(id, parent string, kids []string, role, ctype, recipient, body string, t float64) map[string]any {
		content := map[string]any{"content_type": ctype}
		if ctype == "text" {
			content["parts"] = []string{body}
		} else {
			content["text"], content["language"] = body, "python"
		}
		return map[string]any{"id": id, "parent": parent, "children": kids, "message": map[string]any{
			"id": id, "author": map[string]any{"role": role, "name": nil, "metadata": map[string]any{}},
			"create_time": t, "content": content, "status": "finished_successfully", "recipient": recipient,
			"metadata": map[string]any{"model_slug": "gpt-4o"}}}
	}
	w.WriteString("[")
	for c := 0; c < n; c++ {
		t0 := 1.7e9 + float64(c)*3600
		m := map[string]any{"root": map[string]any{"id": "root", "message": nil, "parent": nil, "children": []string{"sys"}}}
		sys := node("sys", "root", nil, "system", "text", "all", "", t0)
		sys["message"].(map[string]any)["metadata"] = map[string]any{"is_visually_hidden_from_conversation": true}
		m["sys"] = sys
		prev := "sys"
		for x := 0; x < exchanges; x++ {
			u, a := fmt.Sprintf("u%d", x), fmt.Sprintf("a%d", x)
			m[prev].(map[string]any)["children"] = []string{u}
			m[u] = node(u, prev, nil, "user", "text", "all", fmt.Sprintf("Question %d: %s", x, words[:400]), t0+float64(x*60))
			last := u
			if x%4 == 1 {
				code, out := fmt.Sprintf("c%d", x), fmt.Sprintf("o%d", x)
				m[u].(map[string]any)["children"] = []string{code}
				m[code] = node(code, u, []string{out}, "assistant", "code", "python", "import pandas as pd\ndf = pd.read_csv('/mnt/data/sales.csv')\ndf.describe()\n", t0+float64(x*60+5))
				m[out] = node(out, code, nil, "tool", "execution_output", "all", "       revenue\ncount  120.0\nmean   4113.2\n", t0+float64(x*60+9))
				m[out].(map[string]any)["message"].(map[string]any)["author"].(map[string]any)["name"] = "python"
				last = out
			}
			m[last].(map[string]any)["children"] = []string{a}
			m[a] = node(a, last, nil, "assistant", "text", "all", fmt.Sprintf("Answer %d: %s", x, words), t0+float64(x*60+20))
			if c%4 == 0 && x == exchanges/2 {
				alt := a + "-regen"
				m[last].(map[string]any)["children"] = []string{alt, a}
				m[alt] = node(alt, last, nil, "assistant", "text", "all", "An earlier answer: "+words[:600], t0+float64(x*60+15))
			}
			prev = a
		}
		conv := map[string]any{"title": fmt.Sprintf("Sales analysis %d", c), "create_time": t0, "update_time": t0 + 3000,
			"mapping": m, "current_node": prev, "conversation_id": fmt.Sprintf("6b0f0d9c-%04x-4000-8000-%012d", c%65536, c), "id": fmt.Sprintf("6b0f0d9c-%04x-4000-8000-%012d", c%65536, c),
			"default_model_slug": "gpt-4o", "gizmo_id": nil}
		if c%3 == 0 {
			conv["gizmo_id"] = "g-bench0000000000000000000000000"
		}
		if c > 0 {
			w.WriteString(",")
		}
		if err := json.NewEncoder(w).Encode(conv); err != nil {
			tb.Fatal(err)
		}
	}
	w.WriteString("]")
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	st, _ := f.Stat()
	f.Close()
	return st.Size()
}

// cmdPeakRSS runs a command and returns its peak resident memory (MiB) and
// wall time.
func cmdPeakRSS(tb testing.TB, cmd *exec.Cmd) (float64, time.Duration) {
	tb.Helper()
	peak, err := peakrss.Wrap(cmd)
	if err != nil {
		tb.Fatal(err)
	}
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	took := time.Since(t0)
	rss, err := peak()
	if err != nil {
		tb.Fatal(err)
	}
	return float64(rss) / (1 << 20), took
}

// BenchmarkImportLargeExport imports a 5,000-conversation export of about
// 300 MB with `rehome conversations import` and reports its peak RSS,
// against the baseline measured in the same run: the whole file read and
// decoded at once (what an importer that does not stream holds, as
// JSON.parse of the file does in Open WebUI and LibreChat), here in Go.
// REHOME_BENCH_CONVERSATIONS changes the count.
func BenchmarkImportLargeExport(b *testing.B) {
	n := 5000
	if v := os.Getenv("REHOME_BENCH_CONVERSATIONS"); v != "" {
		fmt.Sscan(v, &n)
	}
	dir := b.TempDir()
	export := filepath.Join(dir, "conversations.json")
	size := writeLargeExport(b, export, n, 24)
	b.Logf("export: %d conversations, %.0f MB", n, float64(size)/1e6)
	for i := 0; i < b.N; i++ {
		home := filepath.Join(dir, fmt.Sprint("home", i))
		cmd := exec.Command(rehomeBin, "conversations", "import", export)
		cmd.Env = append(cleanEnv(), "REHOME_HOME="+home)
		rss, took := cmdPeakRSS(b, cmd)
		base := exec.Command(os.Args[0], "-test.run=^TestNaiveLoadBaseline$")
		base.Env = append(os.Environ(), "REHOME_NAIVE_LOAD="+export)
		baseRSS, baseTook := cmdPeakRSS(b, base)
		b.ReportMetric(rss, "rehome-peak-RSS-MiB")
		b.ReportMetric(baseRSS, "whole-file-peak-RSS-MiB")
		b.ReportMetric(took.Seconds(), "rehome-s")
		b.ReportMetric(baseTook.Seconds(), "whole-file-decode-s")
		b.Logf("rehome import: peak RSS %.0f MiB in %s; whole-file decode (baseline): peak RSS %.0f MiB in %s", rss, took.Round(time.Millisecond), baseRSS, baseTook.Round(time.Millisecond))
	}
}

// TestNaiveLoadBaseline is the bench's baseline, run in a process of its
// own: it reads $REHOME_NAIVE_LOAD whole and decodes it at once.
func TestNaiveLoadBaseline(t *testing.T) {
	p := os.Getenv("REHOME_NAIVE_LOAD")
	if p == "" {
		t.Skip("skipped: the baseline of BenchmarkImportLargeExport, run by it")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var all []map[string]any
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d conversations", len(all))
}
