package models

import (
	"strings"
	"testing"
)

// On a CPU-only machine every row said "CPU only" with no speed, and
// "Best for this machine" gave Qwen3 14B at Q3_K_M while the table gave
// Q8_0, with no reason (issue 31, item 9).
func TestCPUOnlySpeedAndTheBestPicksReason(t *testing.T) {
	all, err := Catalog()
	if err != nil {
		t.Fatal(err)
	}
	mach := ManualMachine(0, 32<<30, 0, false)
	table, err := BuildTable(all, TableRequest{Context: 8192}, mach)
	if err != nil {
		t.Fatal(err)
	}
	var row *Row
	for i := range table.Rows {
		if table.Rows[i].Model.ID == "qwen3-14b" {
			row = &table.Rows[i]
		}
	}
	if row == nil || row.Result.Verdict != VerdictCPU {
		t.Fatalf("qwen3-14b: %+v", row)
	}
	s := row.Result.CPUSpeed
	if s == nil {
		t.Fatal("a CPU-only row has no speed estimate")
	}
	// Tokens/s is bandwidth over the bytes a token reads: the weights
	// (less the embedding table, a lookup, for a dense model).
	w := row.Result.WeightsBytes
	if s.ReadBytes > w || s.ReadBytes < w*8/10 || s.Low <= 0 || s.High != 2*s.Low {
		t.Fatalf("speed %+v for weights of %d bytes", s, row.Result.WeightsBytes)
	}
	if got := s.Low * float64(s.ReadBytes); got < 19.9e9 || got > 20.1e9 {
		t.Fatalf("low estimate is %.1f GB/s of bandwidth", got/1e9)
	}
	if !strings.Contains(s.Words(), "tokens/s") || !strings.Contains(s.Basis, "not measured") {
		t.Fatalf("words %q, basis %q", s.Words(), s.Basis)
	}
	var pick *Pick
	for _, p := range Best(all, mach, 8192, 50) {
		if p.Model.ID == "qwen3-14b" {
			pick = &p
		}
	}
	if pick == nil {
		t.Fatal("qwen3-14b is not among the best on 32 GiB")
	}
	if pick.Result.Quant == row.Result.Quant {
		t.Skipf("the pick and the table agree (%s): nothing to explain", pick.Result.Quant)
	}
	if !strings.Contains(pick.Why, row.Result.Quant+" fits too") || !strings.Contains(pick.Why, "tokens/s") {
		t.Fatalf("the pick (%s) says no reason against the table's %s: %q", pick.Result.Quant, row.Result.Quant, pick.Why)
	}
	t.Logf("table %s, pick %s: %s", row.Result.Quant, pick.Result.Quant, pick.Why)

	// A MoE reads its active share; a GPU fit has no CPU speed.
	for _, r := range table.Rows {
		if r.Result.CPUSpeed != nil && r.Model.MoE() && r.Result.CPUSpeed.ReadBytes >= r.Result.WeightsBytes {
			t.Fatalf("%s: a mixture of experts reads all its weights per token", r.Model.ID)
		}
	}
	gpu, err := BuildTable(all, TableRequest{Context: 8192}, ManualMachine(24<<30, 64<<30, 1, false))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range gpu.Rows {
		if r.Result.Verdict == VerdictGPU && r.Result.CPUSpeed != nil {
			t.Fatalf("%s fits in VRAM but has a CPU speed", r.Model.ID)
		}
	}
}
