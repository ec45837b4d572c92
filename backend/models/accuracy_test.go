package models

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// publishedFile is a real GGUF file and its size as published on Hugging
// Face. Sizes in whole bytes are the files' LFS sizes at a pinned
// revision; sizes given as GB come from the quantizer's model card table,
// rounded to 10 MB (1 GB = 1e9 bytes, as Hugging Face counts).
type publishedFile struct {
	file  string
	repo  string
	model string // catalog id with the same architecture
	quant string
	bytes float64
}

var publishedFiles = []publishedFile{
	{"Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF@bf5b95e", "llama-3.1-8b-instruct", "Q4_K_M", 4920739232},
	{"Meta-Llama-3.1-8B-Instruct-Q8_0.gguf", "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF (card)", "llama-3.1-8b-instruct", "Q8_0", 8.54e9},
	{"Meta-Llama-3.1-8B-Instruct-Q6_K.gguf", "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF (card)", "llama-3.1-8b-instruct", "Q6_K", 6.60e9},
	{"Meta-Llama-3.1-8B-Instruct-Q5_K_M.gguf", "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF (card)", "llama-3.1-8b-instruct", "Q5_K_M", 5.73e9},
	{"Meta-Llama-3-8B-Instruct-Q3_K_M.gguf", "bartowski/Meta-Llama-3-8B-Instruct-GGUF (card; same tensors as 3.1)", "llama-3.1-8b-instruct", "Q3_K_M", 4.02e9},
	{"Meta-Llama-3-8B-Instruct-Q2_K.gguf", "bartowski/Meta-Llama-3-8B-Instruct-GGUF (card; same tensors as 3.1)", "llama-3.1-8b-instruct", "Q2_K", 3.18e9},
	{"Meta-Llama-3-8B-Instruct-IQ4_XS.gguf", "bartowski/Meta-Llama-3-8B-Instruct-GGUF (card; same tensors as 3.1)", "llama-3.1-8b-instruct", "IQ4_XS", 4.48e9},
	{"Meta-Llama-3-8B-Instruct-f16.gguf", "bartowski/Meta-Llama-3-8B-Instruct-GGUF (card; same tensors as 3.1)", "llama-3.1-8b-instruct", "F16", 16.07e9},
	{"Meta-Llama-3.1-70B-Instruct-Q4_K_M.gguf", "bartowski/Meta-Llama-3.1-70B-Instruct-GGUF@83fb6e8", "llama-3.1-70b-instruct", "Q4_K_M", 42520398400},
	{"Llama-3.3-70B-Instruct-Q4_K_M.gguf", "bartowski/Llama-3.3-70B-Instruct-GGUF@b6c5c9f", "llama-3.3-70b-instruct", "Q4_K_M", 42520398816},
	{"Llama-3.2-1B-Instruct-Q4_K_M.gguf", "bartowski/Llama-3.2-1B-Instruct-GGUF@067b946", "llama-3.2-1b-instruct", "Q4_K_M", 807694464},
	{"Llama-3.2-3B-Instruct-Q4_K_M.gguf", "bartowski/Llama-3.2-3B-Instruct-GGUF@5ab33fa", "llama-3.2-3b-instruct", "Q4_K_M", 2019377696},
	{"Qwen2.5-7B-Instruct-Q4_K_M.gguf", "bartowski/Qwen2.5-7B-Instruct-GGUF@8911e8a", "qwen2.5-7b-instruct", "Q4_K_M", 4683074240},
	{"Qwen2.5-14B-Instruct-Q4_K_M.gguf", "bartowski/Qwen2.5-14B-Instruct-GGUF@05244aa", "qwen2.5-14b-instruct", "Q4_K_M", 8988110976},
	{"Qwen2.5-14B-Instruct-Q6_K.gguf", "bartowski/Qwen2.5-14B-Instruct-GGUF (card)", "qwen2.5-14b-instruct", "Q6_K", 12.1e9},
	{"Qwen2.5-14B-Instruct-Q8_0.gguf", "bartowski/Qwen2.5-14B-Instruct-GGUF (card)", "qwen2.5-14b-instruct", "Q8_0", 15.7e9},
	{"Qwen2.5-32B-Instruct-Q4_K_M.gguf", "bartowski/Qwen2.5-32B-Instruct-GGUF@2116cbb", "qwen2.5-32b-instruct", "Q4_K_M", 19851336576},
	{"Qwen2.5-72B-Instruct-Q4_K_M.gguf", "bartowski/Qwen2.5-72B-Instruct-GGUF@d43fd97", "qwen2.5-72b-instruct", "Q4_K_M", 47415715488},
	{"Qwen3-14B-Q4_K_M.gguf", "Qwen/Qwen3-14B-GGUF@530227a", "qwen3-14b", "Q4_K_M", 9001752960},
	{"Qwen3-32B-Q4_K_M.gguf", "Qwen/Qwen3-32B-GGUF@938a743", "qwen3-32b", "Q4_K_M", 19762149024},
	{"Qwen3-30B-A3B-Q4_K_M.gguf", "Qwen/Qwen3-30B-A3B-GGUF@e4d4baf", "qwen3-30b-a3b", "Q4_K_M", 18556685824},
	{"Qwen3-235B-A22B-Q4_K_M-0000{1..5}-of-00005.gguf", "Qwen/Qwen3-235B-A22B-GGUF@211e807 (5 parts)", "qwen3-235b-a22b", "Q4_K_M", 142154074176},
	{"gemma-2-9b-it-Q4_K_M.gguf", "bartowski/gemma-2-9b-it-GGUF (card)", "gemma-2-9b-it", "Q4_K_M", 5.76e9},
	{"gemma-2-9b-it-Q8_0.gguf", "bartowski/gemma-2-9b-it-GGUF (card)", "gemma-2-9b-it", "Q8_0", 9.83e9},
	{"gemma-2-27b-it-Q4_K_M.gguf", "bartowski/gemma-2-27b-it-GGUF (card)", "gemma-2-27b-it", "Q4_K_M", 16.65e9},
	{"Phi-3-medium-4k-instruct-Q4_K_M.gguf", "bartowski/Phi-3-medium-4k-instruct-GGUF (card)", "phi-3-medium-4k-instruct", "Q4_K_M", 8.57e9},
	{"Phi-3-medium-4k-instruct-Q8_0.gguf", "bartowski/Phi-3-medium-4k-instruct-GGUF (card)", "phi-3-medium-4k-instruct", "Q8_0", 14.83e9},
	{"Mistral-Nemo-Instruct-2407-Q4_K_M.gguf", "bartowski/Mistral-Nemo-Instruct-2407-GGUF (card)", "mistral-nemo-instruct-2407", "Q4_K_M", 7.48e9},
	{"gpt-oss-20b-MXFP4.gguf", "lmstudio-community/gpt-oss-20b-GGUF", "gpt-oss-20b", "MXFP4", 12109565632},
}

// Bounds of the accuracy table, just above the worst errors measured
// (0.71% on a card size, 3.8 MB on a whole-byte size), so a regression of
// a few tenths of a percent, or of one mis-typed tensor group in a large
// model, fails the test.
const (
	// maxErrPct bounds every row. The worst, Llama 3 8B at IQ4_XS, is
	// 0.71% under a card size rounded to 10 MB.
	maxErrPct = 0.75
	// maxExactErrBytes bounds the rows whose size is a whole-byte LFS size
	// at a pinned revision (a repo with @): the only difference left there
	// is the GGUF header (tokenizer and metadata), which the estimate
	// approximates per vocabulary entry; the worst is +3.8 MB on Qwen2.5.
	// Qwen2.5-72B's attn_v at Q4_K instead of Q5_K was 38 MB low.
	maxExactErrBytes = 8e6
)

// TestWeightSizesMatchPublishedFiles is the accuracy table: the estimated
// file size of each published GGUF file must be within maxErrPct, and
// within maxExactErrBytes where the published size is exact.
func TestWeightSizesMatchPublishedFiles(t *testing.T) {
	if len(publishedFiles) < 10 {
		t.Fatalf("only %d files in the accuracy table", len(publishedFiles))
	}
	var rows []string
	var worst, worstExact float64
	exact := 0
	for _, f := range publishedFiles {
		m, err := Lookup(f.model)
		if err != nil {
			t.Fatal(err)
		}
		l, err := m.Layout(f.quant)
		if err != nil {
			t.Fatalf("%s: %v", f.file, err)
		}
		est := float64(l.FileBytes())
		errPct := (est - f.bytes) / f.bytes * 100
		worst = math.Max(worst, math.Abs(errPct))
		rows = append(rows, fmt.Sprintf("| %s | %s | %.0f | %.0f | %+.2f%% | %+.1f MB |", f.file, f.quant, f.bytes, est, errPct, (est-f.bytes)/1e6))
		if math.Abs(errPct) > maxErrPct {
			t.Errorf("%s: estimated %.0f bytes, published %.0f (%+.2f%%, more than %.2f%%)", f.file, est, f.bytes, errPct, maxErrPct)
		}
		if strings.Contains(f.repo, "@") {
			exact++
			worstExact = math.Max(worstExact, math.Abs(est-f.bytes))
			if math.Abs(est-f.bytes) > maxExactErrBytes {
				t.Errorf("%s: estimated %.0f bytes, published exactly %.0f: %+.1f MB off, more than the %.0f MB a GGUF header explains", f.file, est, f.bytes, (est-f.bytes)/1e6, maxExactErrBytes/1e6)
			}
		}
	}
	if exact < 10 {
		t.Errorf("only %d whole-byte sizes in the accuracy table", exact)
	}
	t.Logf("accuracy table (worst %.2f%%; worst whole-byte size %.1f MB off):\n| file | quant | published bytes | estimate | error | bytes |\n|---|---|---:|---:|---:|---:|\n%s", worst, worstExact/1e6, strings.Join(rows, "\n"))
}

// TestAttnV70B: llama.cpp gives the models its loader types as 70B (80
// layers of llama with grouped-query attention, of qwen2 or qwen2vl) attn_v
// at Q5_K where Q4_K_M would give Q4_K; others keep Q4_K.
func TestAttnV70B(t *testing.T) {
	for _, c := range []struct {
		id   string
		want string
	}{
		{"qwen2.5-72b-instruct", "Q5_K"},
		{"llama-3.1-70b-instruct", "Q5_K"},
		{"qwen2.5-32b-instruct", "Q4_K"},
		{"qwen3-32b", "Q4_K"},
	} {
		m, err := Lookup(c.id)
		if err != nil {
			t.Fatal(err)
		}
		// Layer 10 of 80 (or 64) is not one of useMoreBits' Q6_K layers.
		got := m.typeFor("Q4_K_M", tensor{name: "attn_v", layer: 11, ne0: int64(m.HiddenSize)})
		if got != c.want {
			t.Errorf("%s: attn_v in layer 11 at Q4_K_M is %s, want %s", c.id, got, c.want)
		}
	}
}

// The figures the issue names: Llama 3.1 8B at Q4_K_M weighs about 4.92e9
// bytes, and its f16 KV cache at 8192 tokens is exactly 1 GiB.
func TestLlama31_8B(t *testing.T) {
	m, err := Lookup("llama-3.1-8b-instruct")
	if err != nil {
		t.Fatal(err)
	}
	l, err := m.Layout("Q4_K_M")
	if err != nil {
		t.Fatal(err)
	}
	if w := float64(l.WeightBytes()); math.Abs(w-4.92e9)/4.92e9 > 0.005 {
		t.Errorf("weights %.0f bytes, want about 4.92e9", w)
	}
	kv, per := KVCacheBytes(m, 8192, "f16")
	if kv != 1<<30 {
		t.Errorf("f16 KV cache at 8192 tokens = %d bytes, want exactly 1 GiB (%d)", kv, 1<<30)
	}
	if len(per) != 32 || per[0] != 1<<25 {
		t.Errorf("per-layer KV %v", per[:1])
	}
}

func TestKVCacheFormula(t *testing.T) {
	m, _ := Lookup("llama-3.1-8b-instruct")
	for _, c := range []struct {
		kv   string
		want int64
	}{
		// 2 × 32 layers × 8192 tokens × 8 heads × 128 dims = 536870912 elements
		{"f16", 536870912 * 2},
		{"q8_0", 536870912 / 32 * 34},
		{"q4_0", 536870912 / 32 * 18},
	} {
		if got, _ := KVCacheBytes(m, 8192, c.kv); got != c.want {
			t.Errorf("%s: %d, want %d", c.kv, got, c.want)
		}
	}
	// Gemma 3 27B: 10 global layers keep the whole context, 52 sliding-
	// window layers keep window 1024 + one 512-token batch = 1536 tokens.
	g, _ := Lookup("gemma-3-27b-it")
	got, _ := KVCacheBytes(g, 32768, "f16")
	want := int64(2*10*32768*16*128*2 + 2*52*1536*16*128*2)
	if got != want {
		t.Errorf("gemma-3-27b KV at 32768 = %d, want %d", got, want)
	}
	// Below the window every layer holds the whole context.
	got, _ = KVCacheBytes(g, 1024, "f16")
	if want := int64(2 * 62 * 1024 * 16 * 128 * 2); got != want {
		t.Errorf("gemma-3-27b KV at 1024 = %d, want %d", got, want)
	}
	// gpt-oss-20b: 12 full layers, 12 with a 128-token window (768 padded).
	o, _ := Lookup("gpt-oss-20b")
	got, _ = KVCacheBytes(o, 131072, "f16")
	if want := int64(2*12*131072*8*64*2 + 2*12*768*8*64*2); got != want {
		t.Errorf("gpt-oss-20b KV = %d, want %d", got, want)
	}
}
