package tinymodel

import "testing"

// The memory script (one named call) and the canvas script (two) say
// their steps in the reference forward pass, each at a margin no
// temperature overturns: no tool result → the (first) call; for the
// canvas, a result → the second call; then the answer.
func TestMemoryAndCanvasScripts(t *testing.T) {
	src := llamaSource(t)
	const nl, imStart = 198, 151644
	var prompt []int32
	prompt = append(prompt, imStart)
	for i := 0; i < 120; i++ {
		prompt = append(prompt, int32(1000+i*37%5000))
	}
	for name, s := range map[string]Script{"memory": MemoryScript(), "canvas": CanvasScript()} {
		m, err := Build(src, s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r := newRef(m)
		end := m.Answer[len(m.Answer)-1]
		prompts := [][]int32{prompt}
		wants := [][]int32{m.Steps[0]}
		after := append(append(append([]int32{}, prompt...), m.Steps[0]...), m.ToolResponse, 2000)
		if len(s.Calls) == 2 {
			prompts, wants = append(prompts, after), append(wants, m.Steps[1])
			after = append(append(append([]int32{}, after...), m.Steps[1]...), m.ToolResponse, 2001)
		}
		prompts, wants = append(prompts, after), append(wants, m.Answer)
		for i, p := range prompts {
			got, margin := r.greedy(append(append([]int32{}, p...), nl), 60, end)
			if !equal(got, wants[i]) {
				t.Fatalf("%s step %d: the model said %v, want %v", name, i, got, wants[i])
			}
			if margin < 100 {
				t.Errorf("%s step %d: margin %.0f is too thin", name, i, margin)
			}
		}
	}
}
