package tinymodel

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// llamaSource is a llama.cpp source tree (or the folder the build script
// copies the vocabulary and the template into).
func llamaSource(t *testing.T) string {
	t.Helper()
	dirs := []string{os.Getenv("REHOME_LLAMA_SRC")}
	if bin := os.Getenv("REHOME_LLAMA_SERVER"); bin != "" {
		dirs = append(dirs, filepath.Dir(bin)) // the build script copies them there
	}
	cache := os.Getenv("REHOME_CACHE")
	if cache == "" {
		cache = "/var/cache/rehome"
	}
	dirs = append(dirs, filepath.Join(cache, "llama", "src"))
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if v, tm := sourceFiles(d); exists(v) && exists(tm) {
			return d
		}
	}
	if os.Getenv("REHOME_REQUIRE_LLAMA") != "" {
		t.Fatalf("no llama.cpp source with %s and %s (run build/llm/llama-server.sh)", VocabFile, TemplateFile)
	}
	t.Skipf("skipped: no llama.cpp source with %s and %s under %v (run build/llm/llama-server.sh, or set REHOME_LLAMA_SRC)", VocabFile, TemplateFile, dirs)
	return ""
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// forward is a reference llama forward pass over the model's tensors (as
// stored: through half precision), returning the last position's logits.
type ref struct {
	w map[string]*tensor
}

func newRef(m *Model) *ref {
	r := &ref{w: map[string]*tensor{}}
	for _, t := range m.tensors {
		c := *t
		if t.Type == ggmlF16 {
			c.Data = make([]float32, len(t.Data))
			for i, v := range t.Data {
				c.Data[i] = f16to32(f16(v))
			}
		}
		r.w[t.Name] = &c
	}
	return r
}

func f16to32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		return float32(math.Copysign(float64(mant)/1024*math.Pow(2, -14), float64(int32(sign)|1)))
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

func rmsNorm(x, g []float32) []float32 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	k := float32(1 / math.Sqrt(s/float64(len(x))+1e-6))
	out := make([]float32, len(x))
	for i := range x {
		out[i] = x[i] * k * g[i]
	}
	return out
}

// matvec: tensor of shape {in, out} times x.
func matvec(t *tensor, x []float32) []float32 {
	in, out := int(t.Shape[0]), int(t.Shape[1])
	y := make([]float32, out)
	for o := 0; o < out; o++ {
		var s float32
		row := t.Data[o*in : (o+1)*in]
		for i, v := range row {
			s += v * x[i]
		}
		y[o] = s
	}
	return y
}

func rope(x []float32, pos int) {
	for i := 0; i < len(x); i += 2 {
		theta := float64(pos) * math.Pow(1e6, -float64(i)/float64(len(x)))
		c, s := float32(math.Cos(theta)), float32(math.Sin(theta))
		a, b := x[i], x[i+1]
		x[i], x[i+1] = a*c-b*s, a*s+b*c
	}
}

func (r *ref) logits(tokens []int32) []float32 {
	emb := r.w["token_embd.weight"]
	xs := make([][]float32, len(tokens))
	for p, t := range tokens {
		xs[p] = append([]float32{}, emb.Data[int(t)*nEmbd:(int(t)+1)*nEmbd]...)
	}
	for l := 0; l < nLayer; l++ {
		w := func(n string) *tensor { return r.w["blk."+string(rune('0'+l))+"."+n+".weight"] }
		qs, ks, vs := make([][]float32, len(xs)), make([][]float32, len(xs)), make([][]float32, len(xs))
		for p, x := range xs {
			h := rmsNorm(x, w("attn_norm").Data)
			qs[p], ks[p], vs[p] = matvec(w("attn_q"), h), matvec(w("attn_k"), h), matvec(w("attn_v"), h)
			rope(qs[p], p)
			rope(ks[p], p)
		}
		next := make([][]float32, len(xs))
		for p := range xs {
			scores := make([]float64, p+1)
			mx := math.Inf(-1)
			for j := 0; j <= p; j++ {
				var s float64
				for d := range qs[p] {
					s += float64(qs[p][d] * ks[j][d])
				}
				scores[j] = s / math.Sqrt(nEmbd)
				mx = math.Max(mx, scores[j])
			}
			att := make([]float32, nEmbd)
			var z float64
			for j := range scores {
				scores[j] = math.Exp(scores[j] - mx)
				z += scores[j]
			}
			for j := range scores {
				for d := range att {
					att[d] += float32(scores[j]/z) * vs[j][d]
				}
			}
			o := matvec(w("attn_output"), att)
			x := make([]float32, nEmbd)
			for d := range x {
				x[d] = xs[p][d] + o[d]
			}
			h := rmsNorm(x, w("ffn_norm").Data)
			g, u := matvec(w("ffn_gate"), h), matvec(w("ffn_up"), h)
			for i := range g {
				g[i] = g[i] / (1 + float32(math.Exp(-float64(g[i])))) * u[i]
			}
			d := matvec(w("ffn_down"), g)
			for i := range x {
				x[i] += d[i]
			}
			next[p] = x
		}
		xs = next
	}
	h := rmsNorm(xs[len(xs)-1], r.w["output_norm.weight"].Data)
	return matvec(r.w["output.weight"], h)
}

// greedy decodes from prompt until <|im_end|> (or n steps), returning the
// tokens and the smallest margin between the chosen logit and the next.
func (r *ref) greedy(prompt []int32, n int, end int32) ([]int32, float32) {
	toks := append([]int32{}, prompt...)
	var out []int32
	margin := float32(math.Inf(1))
	for range n {
		lg := r.logits(toks)
		best, second := 0, 1
		if lg[second] > lg[best] {
			best, second = second, best
		}
		for i := 2; i < len(lg); i++ {
			if lg[i] > lg[best] {
				best, second = i, best
			} else if lg[i] > lg[second] {
				second = i
			}
		}
		margin = min(margin, lg[best]-lg[second])
		out = append(out, int32(best))
		toks = append(toks, int32(best))
		if int32(best) == end {
			break
		}
	}
	return out, margin
}

func TestChains(t *testing.T) {
	src := llamaSource(t)
	m, err := Build(src, DefaultScript("sales.csv", "region", "revenue"))
	if err != nil {
		t.Fatal(err)
	}
	r := newRef(m)
	end := m.Call[len(m.Call)-1]
	const nl, imStart = 198, 151644
	trID := m.ToolResponse
	// A prompt without a tool result, of some length, ending in a newline.
	var prompt []int32
	prompt = append(prompt, imStart)
	for i := 0; i < 120; i++ {
		prompt = append(prompt, int32(1000+i*37%5000))
	}
	prompt = append(prompt, nl)
	got, margin := r.greedy(prompt, 40, end)
	if !equal(got, m.Call) {
		t.Fatalf("without a tool result the model said %v, want the call %v", got, m.Call)
	}
	t.Logf("call: %d tokens, smallest margin %.0f", len(got), margin)
	if margin < 100 {
		t.Errorf("margin %.0f is too thin for any temperature", margin)
	}
	// The same with a tool result early in a long prompt.
	withTR := append(append([]int32{}, prompt[:50]...), trID)
	withTR = append(withTR, prompt[50:]...)
	got, margin = r.greedy(withTR, 40, end)
	if !equal(got, m.Answer) {
		t.Fatalf("with a tool result the model said %v, want the answer %v", got, m.Answer)
	}
	t.Logf("answer: %d tokens, smallest margin %.0f", len(got), margin)
	if margin < 100 {
		t.Errorf("margin %.0f is too thin for any temperature", margin)
	}
}

func equal(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Two calls, one per step: with no tool result the first, with one the
// second, with the second call in the prompt the answer; the weights of
// the one-call model are those of before (its wire is recorded).
func TestTwoCalls(t *testing.T) {
	src := llamaSource(t)
	m, err := Build(src, ActionScript())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Steps) != 3 || m.Marker == 0 {
		t.Fatalf("steps %d, marker %d", len(m.Steps), m.Marker)
	}
	r := newRef(m)
	end := m.Answer[len(m.Answer)-1]
	const nl, imStart = 198, 151644
	var prompt []int32
	prompt = append(prompt, imStart)
	for i := 0; i < 120; i++ {
		prompt = append(prompt, int32(1000+i*37%5000))
	}
	// the first call said, a tool result, the second call said, a result
	afterFirst := append(append(append([]int32{}, prompt...), m.Steps[0]...), m.ToolResponse, 2000, 2001)
	afterSecond := append(append(append([]int32{}, afterFirst...), m.Steps[1]...), m.ToolResponse, 2002)
	for i, p := range [][]int32{prompt, afterFirst, afterSecond} {
		got, margin := r.greedy(append(append([]int32{}, p...), nl), 40, end)
		if !equal(got, m.Steps[i]) {
			t.Fatalf("step %d: the model said %v, want %v", i, got, m.Steps[i])
		}
		t.Logf("step %d: %d tokens, smallest margin %.0f", i, len(got), margin)
		if margin < 100 {
			t.Errorf("step %d: margin %.0f is too thin for any temperature", i, margin)
		}
	}
	if _, err := Build(src, Script{Calls: []Call{{Name: "a", Args: []string{"{}"}}, {Name: "b", Args: []string{"{}"}}}, Answer: []string{"x"}}); err == nil {
		t.Fatal("a fragment said in two calls was accepted")
	}
}
