package models

import "testing"

func TestBuildTable(t *testing.T) {
	all, _ := Catalog()
	mach := ManualMachine(24*gib, 64*gib, 1, false)
	tab, err := BuildTable(all, TableRequest{}, mach)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Context != 8192 || tab.KVCache != "f16" || tab.Quant != "auto" || len(tab.Rows) != len(all) || len(tab.Best) != 5 {
		t.Fatalf("table %d rows, %d best, %+v", len(tab.Rows), len(tab.Best), tab.Machine)
	}
	verdicts := map[string]string{}
	for _, r := range tab.Rows {
		verdicts[r.Model.ID] = r.Result.Verdict + " " + r.Result.Quant
	}
	for id, want := range map[string]string{
		"llama-3.1-8b-instruct":  "gpu Q8_0",       // the best quantization that fits
		"qwen2.5-32b-instruct":   "gpu Q4_K_M",     // Q5_K_M would not
		"llama-3.3-70b-instruct": "partial Q4_K_M", // nothing fits fully: the default
		"qwen3-235b-a22b":        "none Q4_K_M",
		"gpt-oss-20b":            "gpu MXFP4",
	} {
		if verdicts[id] != want {
			t.Errorf("%s: %q, want %q", id, verdicts[id], want)
		}
	}
	one, err := BuildTable(all, TableRequest{Quant: "mxfp4", Context: 4096, KVCache: "q8_0"}, mach)
	if err != nil || one.Quant != "MXFP4" || len(one.Rows) != 2 {
		t.Errorf("MXFP4 only: %d rows, %v", len(one.Rows), err)
	}
	for _, bad := range []TableRequest{{Context: -1}, {KVCache: "q2"}, {Quant: "Q9"}} {
		if _, err := BuildTable(all, bad, mach); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
