package models

import "testing"

// BenchmarkFit is one estimate with its largest-context search; the
// Hardware screen's table is 43 of them (BenchmarkBuildTable).
func BenchmarkFit(b *testing.B) {
	m, _ := Lookup("llama-3.3-70b-instruct")
	mach := ManualMachine(24*gib, 64*gib, 1, false)
	for b.Loop() {
		if _, err := Fit(m, "Q4_K_M", Options{Context: 8192}, mach); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildTable(b *testing.B) {
	all, _ := Catalog()
	mach := ManualMachine(24*gib, 64*gib, 1, false)
	for b.Loop() {
		if _, err := BuildTable(all, TableRequest{}, mach); err != nil {
			b.Fatal(err)
		}
	}
}
