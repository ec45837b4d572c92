package models

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/bytesize"
	"rehome/backend/hardware"
)

const gib = 1 << 30

// fixtureMachine detects one of package hardware's recorded machines.
func fixtureMachine(t *testing.T, name string) Machine {
	t.Helper()
	root := filepath.Join("..", "hardware", "testdata", name)
	opts := hardware.Options{Root: root, DisableNvidiaSMI: true}
	if out, err := os.ReadFile(filepath.Join(root, "nvidia-smi.txt")); err == nil {
		opts = hardware.Options{Root: root, NvidiaSMI: "nvidia-smi", Runner: answer(out)}
	}
	r, err := hardware.NewDetector(opts).Detect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return MachineFrom(r)
}

type answer []byte

func (a answer) Output(context.Context, string, ...string) ([]byte, error) { return a, nil }

func fit(t *testing.T, id, q string, ctx int, kv string, mach Machine) FitResult {
	t.Helper()
	m, err := Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Fit(m, q, Options{Context: ctx, KVCache: kv}, mach)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestVerdictsOnFixtureMachines(t *testing.T) {
	rtx := fixtureMachine(t, "nvidia-rtx3090")
	if rtx.VRAMBytes != 24576<<20 || rtx.GPUs != 1 || rtx.Unified {
		t.Fatalf("RTX 3090 machine %+v", rtx)
	}
	vm := fixtureMachine(t, "vm-nodrm")
	l4s := fixtureMachine(t, "nvidia-2x-l4")
	spark := fixtureMachine(t, "nvidia-gb10-na")
	igpu := fixtureMachine(t, "intel-igpu-laptop")

	cases := []struct {
		name, id, quant string
		ctx             int
		mach            Machine
		verdict         string
	}{
		{"8B on a 3090", "llama-3.1-8b-instruct", "Q4_K_M", 8192, rtx, VerdictGPU},
		{"32B Q4 on a 3090", "qwen2.5-32b-instruct", "Q4_K_M", 8192, rtx, VerdictGPU},
		{"70B Q4 on a 3090 + 64 GiB", "llama-3.3-70b-instruct", "Q4_K_M", 8192, rtx, VerdictPartial},
		{"235B on a 3090 + 64 GiB", "qwen3-235b-a22b", "Q4_K_M", 8192, rtx, VerdictNone},
		{"8B on the VM", "llama-3.1-8b-instruct", "Q4_K_M", 8192, vm, VerdictCPU},
		{"70B on the VM", "llama-3.3-70b-instruct", "Q4_K_M", 8192, vm, VerdictNone},
		{"70B Q4 on two L4s", "llama-3.3-70b-instruct", "Q4_K_M", 8192, l4s, VerdictGPU},
		{"70B Q6 on two L4s", "llama-3.3-70b-instruct", "Q6_K", 8192, l4s, VerdictPartial},
		{"32B Q4 on two L4s", "qwen2.5-32b-instruct", "Q4_K_M", 8192, l4s, VerdictGPU},
		{"70B Q4 on a DGX Spark", "llama-3.3-70b-instruct", "Q4_K_M", 32768, spark, VerdictGPU},
		{"gpt-oss-120b on a DGX Spark", "gpt-oss-120b", "MXFP4", 131072, spark, VerdictGPU},
		{"8B on an Iris Xe laptop", "llama-3.1-8b-instruct", "Q4_K_M", 8192, igpu, VerdictGPU},
		{"32B Q4 on an Iris Xe laptop", "qwen2.5-32b-instruct", "Q4_K_M", 8192, igpu, VerdictGPU},
		{"32B Q5 on an Iris Xe laptop", "qwen2.5-32b-instruct", "Q5_K_M", 8192, igpu, VerdictPartial},
		{"70B on an Iris Xe laptop", "llama-3.3-70b-instruct", "Q4_K_M", 8192, igpu, VerdictNone},
	}
	for _, c := range cases {
		r := fit(t, c.id, c.quant, c.ctx, "f16", c.mach)
		if r.Verdict != c.verdict {
			t.Errorf("%s: %s (%s), want %s; total %s", c.name, r.Verdict, r.VerdictText, c.verdict, bytesize.Format(r.TotalBytes))
		}
		if r.TotalBytes != r.WeightsBytes+r.KVCacheBytes+r.ComputeBytes+r.OverheadBytes+r.VisionBytes {
			t.Errorf("%s: terms do not add up", c.name)
		}
		checkVerdictArithmetic(t, c.name, r)
	}
}

// checkVerdictArithmetic re-derives the verdict from the reported split.
func checkVerdictArithmetic(t *testing.T, name string, r FitResult) {
	t.Helper()
	m := r.Machine
	switch r.Verdict {
	case VerdictGPU:
		if r.VRAMNeededBytes > m.VRAMBytes || r.LayersOnGPU != r.Layers {
			t.Errorf("%s: fits fully with %d > %d VRAM", name, r.VRAMNeededBytes, m.VRAMBytes)
		}
	case VerdictPartial:
		if r.VRAMNeededBytes > m.VRAMBytes || r.LayersOnGPU <= 0 || r.LayersOnGPU >= r.Layers {
			t.Errorf("%s: %d layers in %d bytes of %d VRAM", name, r.LayersOnGPU, r.VRAMNeededBytes, m.VRAMBytes)
		}
		if !strings.Contains(r.VerdictText, "layers offloaded") {
			t.Errorf("%s: %q", name, r.VerdictText)
		}
	case VerdictCPU:
		if r.RAMNeededBytes > m.UsableRAM() || r.LayersOnGPU != 0 {
			t.Errorf("%s: cpu with %d > %d", name, r.RAMNeededBytes, m.UsableRAM())
		}
	case VerdictNone:
		if r.RAMNeededBytes <= m.UsableRAM() && m.VRAMBytes == 0 {
			t.Errorf("%s: says no fit but %d fits in %d", name, r.RAMNeededBytes, m.UsableRAM())
		}
	}
}

// One more layer on the GPU must not fit: the split is the largest.
func TestPartialOffloadIsTheLargestThatFits(t *testing.T) {
	mach := ManualMachine(24*gib, 64*gib, 1, false)
	m, _ := Lookup("llama-3.3-70b-instruct")
	l, _ := m.Layout("Q4_K_M")
	r, err := FitLayout(m, l, Options{Context: 8192}, mach)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != VerdictPartial {
		t.Fatalf("verdict %s", r.Verdict)
	}
	_, kv := KVCacheBytes(m, 8192, "f16")
	next := m.Layers - r.LayersOnGPU - 1
	if r.VRAMNeededBytes+l.LayerBytes[next]+kv[next] <= mach.VRAMBytes {
		t.Errorf("layer %d would still fit: %d + %d <= %d", next, r.VRAMNeededBytes, l.LayerBytes[next]+kv[next], mach.VRAMBytes)
	}
	t.Logf("70B Q4_K_M on 24 GiB + 64 GiB: %s", r.VerdictText)
}

func TestQuantizedKVCacheBuysContext(t *testing.T) {
	mach := ManualMachine(24*gib, 64*gib, 1, false)
	f16 := fit(t, "deepseek-r1-distill-qwen-32b", "Q4_K_M", 8192, "f16", mach)
	q8 := fit(t, "deepseek-r1-distill-qwen-32b", "Q4_K_M", 8192, "q8_0", mach)
	q4 := fit(t, "deepseek-r1-distill-qwen-32b", "Q4_K_M", 8192, "q4_0", mach)
	if !(q4.KVCacheBytes < q8.KVCacheBytes && q8.KVCacheBytes < f16.KVCacheBytes) {
		t.Errorf("KV f16 %d q8 %d q4 %d", f16.KVCacheBytes, q8.KVCacheBytes, q4.KVCacheBytes)
	}
	t.Logf("32B Q4_K_M on 24 GiB, largest context: f16 %d, q8_0 %d, q4_0 %d tokens", f16.MaxContext, q8.MaxContext, q4.MaxContext)
	if !(q4.MaxContext > q8.MaxContext && q8.MaxContext > f16.MaxContext) || f16.MaxContext < 8192 {
		t.Errorf("max context f16 %d q8 %d q4 %d", f16.MaxContext, q8.MaxContext, q4.MaxContext)
	}
	if len(q8.Notes) == 0 || !strings.Contains(strings.Join(q8.Notes, " "), "flash attention") {
		t.Errorf("quantized KV note missing: %q", q8.Notes)
	}
}

func TestMaxContext(t *testing.T) {
	mach := ManualMachine(24*gib, 64*gib, 1, false)
	r := fit(t, "qwen2.5-32b-instruct", "Q4_K_M", 8192, "f16", mach)
	if r.MaxContextIn != "vram" || r.MaxContext%256 != 0 || r.MaxContext < 8192 {
		t.Fatalf("max context %d in %s", r.MaxContext, r.MaxContextIn)
	}
	at := fit(t, "qwen2.5-32b-instruct", "Q4_K_M", r.MaxContext, "f16", mach)
	past := fit(t, "qwen2.5-32b-instruct", "Q4_K_M", r.MaxContext+256, "f16", mach)
	if at.Verdict != VerdictGPU || (r.MaxContext < 32768 && past.Verdict == VerdictGPU) {
		t.Errorf("max context %d: at it %s, past it %s", r.MaxContext, at.Verdict, past.Verdict)
	}
	// The model's own limit caps it.
	small := fit(t, "llama-3.2-1b-instruct", "Q4_K_M", 8192, "f16", mach)
	if small.MaxContext != 131072 {
		t.Errorf("1B on 24 GiB: max context %d, want the model's 131072", small.MaxContext)
	}
	// Nothing fits: 0.
	none := fit(t, "qwen3-235b-a22b", "Q4_K_M", 8192, "f16", mach)
	if none.MaxContext != 0 {
		t.Errorf("235B: max context %d", none.MaxContext)
	}
	// Without a GPU the context is counted against RAM.
	cpu := fit(t, "llama-3.1-8b-instruct", "Q4_K_M", 8192, "f16", ManualMachine(0, 32*gib, 0, false))
	if cpu.MaxContextIn != "ram" || cpu.MaxContext < 65536 {
		t.Errorf("CPU: %d in %s", cpu.MaxContext, cpu.MaxContextIn)
	}
}

func TestTermsShowTheArithmetic(t *testing.T) {
	r := fit(t, "gemma-3-27b-it", "Q4_K_M", 32768, "q8_0", ManualMachine(24*gib, 64*gib, 1, false))
	keys := map[string]Term{}
	for _, term := range r.Terms {
		keys[term.Key] = term
		if term.Formula == "" || term.Label == "" {
			t.Errorf("term %q has no formula", term.Key)
		}
	}
	for _, k := range []string{"weights", "kv_cache", "compute", "overhead", "vision", "total"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("no %s term", k)
		}
	}
	if !strings.Contains(keys["kv_cache"].Formula, "sliding-window") || !strings.Contains(keys["kv_cache"].Formula, "34/32") {
		t.Errorf("KV formula %q", keys["kv_cache"].Formula)
	}
	if !strings.Contains(keys["weights"].Formula, "Q4_K") || !strings.Contains(keys["weights"].Formula, "Q6_K") {
		t.Errorf("weights formula %q", keys["weights"].Formula)
	}
	if keys["total"].Bytes != r.TotalBytes || r.VisionBytes == 0 {
		t.Errorf("total %d vision %d", keys["total"].Bytes, r.VisionBytes)
	}
}

func TestFitRejectsBadOptions(t *testing.T) {
	m, _ := Lookup("llama-3.1-8b-instruct")
	mach := ManualMachine(0, 16*gib, 0, false)
	if _, err := Fit(m, "Q4_K_M", Options{Context: -1}, mach); err == nil {
		t.Error("negative context accepted")
	}
	if _, err := Fit(m, "Q4_K_M", Options{KVCache: "q5_9"}, mach); err == nil || !strings.Contains(err.Error(), "q8_0") {
		t.Errorf("bad KV type: %v", err)
	}
	r, err := Fit(m, "q4_k_m", Options{}, mach)
	if err != nil || r.Context != 8192 || r.KVCache != "f16" || r.Quant != "Q4_K_M" {
		t.Errorf("defaults: %+v %v", r, err)
	}
	long, _ := Fit(m, "Q4_K_M", Options{Context: 262144}, ManualMachine(80*gib, 256*gib, 1, false))
	if !strings.Contains(strings.Join(long.Notes, " "), "beyond") {
		t.Errorf("no note past the trained context: %q", long.Notes)
	}
}

func TestBest(t *testing.T) {
	all, _ := Catalog()
	rtx := fixtureMachine(t, "nvidia-rtx3090")
	picks := Best(all, rtx, 8192, 5)
	if len(picks) != 5 {
		t.Fatalf("%d picks", len(picks))
	}
	for i, p := range picks {
		if p.Rank != i+1 || p.Result.Verdict != VerdictGPU || (i > 0 && p.Score > picks[i-1].Score) || float64(p.Result.VRAMNeededBytes) > 0.95*float64(rtx.VRAMBytes) {
			t.Errorf("pick %d: %+v", i, p)
		}
	}
	if picks[0].Model.ParamsText < 27e9 {
		t.Errorf("best on a 24 GiB card is %s, expected a ~30B model", picks[0].Model.ID)
	}
	for _, p := range picks {
		t.Logf("3090 #%d %s %s %s", p.Rank, p.Model.ID, p.Result.Quant, p.Why)
	}
	vm := fixtureMachine(t, "vm-nodrm")
	cpu := Best(all, vm, 8192, 5)
	if len(cpu) == 0 || cpu[0].Result.Verdict != VerdictCPU || !cpu[0].Model.MoE() {
		t.Errorf("CPU-only best should be a mixture of experts (little read per token): %+v", cpu)
	}
	for _, p := range cpu {
		if read := float64(p.Result.WeightsBytes) * float64(p.Model.ParamsActive) / float64(p.Model.ParamsText); read > cpuMaxRead {
			t.Errorf("%s reads %.1f GB per token on a CPU", p.Model.ID, read/1e9)
		}
	}
	for _, p := range cpu {
		t.Logf("VM #%d %s %s %s", p.Rank, p.Model.ID, p.Result.Quant, p.Why)
	}
	if got := Best(all, ManualMachine(0, 2*gib, 0, false), 8192, 5); len(got) != 0 {
		t.Errorf("a 2 GiB machine got picks: %d", len(got))
	}
}

func TestManualMachine(t *testing.T) {
	m := ManualMachine(24*gib, 64*gib, 0, false)
	if m.GPUs != 1 || !m.ByHand || !strings.Contains(m.Description, "24 GiB VRAM") {
		t.Errorf("%+v", m)
	}
	// Counted in words, not "GPU(s)" (issue 31's broken details).
	if d := m.Description; d != "planned: 24 GiB VRAM on 1 GPU, 64 GiB RAM" {
		t.Errorf("description %q", d)
	}
	if d := ManualMachine(48*gib, 64*gib, 2, false).Description; d != "planned: 48 GiB VRAM on 2 GPUs, 64 GiB RAM" {
		t.Errorf("description %q", d)
	}
	if c := ManualMachine(0, 64*gib, 2, false); c.GPUs != 0 {
		t.Errorf("no VRAM but %d GPUs", c.GPUs)
	}
	if u := ManualMachine(0, 64*gib, 0, false).UsableRAM(); u != 64*gib-64*gib/10 {
		t.Errorf("usable %d", u)
	}
	if u := ManualMachine(0, 1*gib, 0, false).UsableRAM(); u != 0 {
		t.Errorf("usable of 1 GiB %d", u)
	}
}
