package tinymodel

import "testing"

// The memory script (one named call) and the canvas script (two) say
// their steps in the reference forward pass, each at a margin no
// temperature overturns: no tool result → the (first) call; for the
// canvas, a result → the second call; then the answer. The memory
// script calls only where its tool is offered (the listing's token in
// the prompt): a prompt without it gets the answer at once.
func TestMemoryAndCanvasScripts(t *testing.T) {
	src := llamaSource(t)
	const nl, imStart = 198, 151644
	var prompt []int32
	prompt = append(prompt, imStart)
	for i := 0; i < 120; i++ {
		prompt = append(prompt, int32(1000+i*37%5000))
	}
	for name, s := range map[string]Script{"memory": MemoryScript(), "canvas": CanvasScript(), "code canvas": CodeCanvasScript(), "vision": VisionScript()} {
		m, err := Build(src, s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r := newRef(m)
		end := m.Answer[len(m.Answer)-1]
		offered := append([]int32{}, prompt...)
		if s.IfOffered {
			if m.Offer == 0 {
				t.Fatalf("%s: no offer token", name)
			}
			offered = append(append(append([]int32{}, prompt[:40]...), m.Offer), prompt[40:]...)
		}
		prompts := [][]int32{offered}
		wants := [][]int32{m.Steps[0]}
		after := append(append(append([]int32{}, offered...), m.Steps[0]...), m.ToolResponse, 2000)
		if len(s.Calls) == 2 {
			prompts, wants = append(prompts, after), append(wants, m.Steps[1])
			after = append(append(append([]int32{}, after...), m.Steps[1]...), m.ToolResponse, 2001)
		}
		prompts, wants = append(prompts, after), append(wants, m.Answer)
		if s.IfOffered {
			// Not offered: the answer at once, and after another tool's
			// result too.
			other := append(append([]int32{}, prompt...), m.ToolResponse, 2002)
			prompts, wants = append(prompts, prompt, other), append(wants, m.Answer, m.Answer)
		}
		for i, p := range prompts {
			got, margin := r.greedy(append(append([]int32{}, p...), nl), 60, end)
			if !equal(got, wants[i]) {
				t.Fatalf("%s step %d: the model said %v, want %v", name, i, got, wants[i])
			}
			if margin < 100 {
				t.Errorf("%s step %d: margin %.0f is too thin", name, i, margin)
			}
			t.Logf("%s step %d: %d tokens, smallest margin %.0f", name, i, len(got), margin)
		}
	}
	if _, err := Build(src, Script{Calls: ActionScript().Calls, Answer: []string{"x"}, IfOffered: true}); err == nil {
		t.Fatal("IfOffered with two calls was accepted")
	}
}
