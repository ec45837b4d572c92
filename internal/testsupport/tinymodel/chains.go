package tinymodel

import (
	"errors"
	"fmt"
)

// ActionScript looks order o-42 up with getOrder (a GET), then places an
// order with placeOrder (a consequential POST), one call a turn, then
// answers: the operations of backend/actions/testdata/shop.yaml.
func ActionScript() Script {
	return Script{
		Calls: []Call{
			{Before: []string{"Let me look", " the order up."}, Name: "getOrder", Args: []string{`{"id": `, `"o-42"}`}},
			{Before: []string{"Now I place", " the new order."}, Name: "placeOrder", Args: []string{`{"sku": "A1", `, `"qty": 1}`}},
		},
		Answer: []string{"Order o-42", " totals 12.5;", " the new order's", " result is above."},
	}
}

// NoteScript notes order o-42 with noteOrder (a PUT whose rule offers
// "Always allow"), then answers.
func NoteScript() Script {
	return Script{
		Calls:  []Call{{Before: []string{"I add", " the note."}, Name: "noteOrder", Args: []string{`{"id": "o-42", `, `"note": "leave it at the door"}`}}},
		Answer: []string{"The note", " is on order o-42."},
	}
}

// dimFlag2 is the residual dimension the second detector writes: +1 once
// the second call is in the prompt, −1 before.
const dimFlag2 = 60

// callSyntax are the fragments of Qwen2.5's tool-call format that every
// call says: the only fragments two chains may share.
var callSyntax = map[string]bool{"<tool_call>": true, "\n{\"name\": \"": true, "}\n": true, "</tool_call>": true}

// texts are the chains the script says, one per step, as text: each call
// (python's, or the named ones), then the answer.
func (s Script) texts() ([][]string, error) {
	if len(s.Answer) == 0 {
		return nil, errors.New("the script needs an answer")
	}
	var out [][]string
	if s.IfOffered && len(s.Calls) != 1 {
		return nil, errors.New("IfOffered needs one named call (the second layer, which tells two calls apart, then looks for the tool's offer)")
	}
	switch {
	case len(s.Calls) > 2:
		return nil, fmt.Errorf("the script has %d calls; at most 2 are told apart", len(s.Calls))
	case len(s.Calls) > 0:
		for i, c := range s.Calls {
			if c.Name == "" || len(c.Args) == 0 {
				return nil, fmt.Errorf("call %d needs a name and arguments", i+1)
			}
			t := append([]string{}, c.Before...)
			t = append(t, "<tool_call>", "\n{\"name\": \"", c.Name+"\", \"arguments\": ")
			t = append(t, c.Args...)
			out = append(out, append(t, "}\n", "</tool_call>"))
		}
	case len(s.Code) > 0:
		t := append([]string{}, s.Before...)
		t = append(t, "<tool_call>", "\n{\"name\": \"", "python", "\", \"arguments\": {\"code\": \"")
		for _, c := range s.Code {
			t = append(t, jsonString(c))
		}
		out = append(out, append(t, "\"}}\n", "</tool_call>"))
	default:
		return nil, errors.New("the script needs code or calls, and an answer")
	}
	return append(out, s.Answer), nil
}

// tokenize gives each fragment its token and ends each chain with
// <|im_end|>. A fragment is said once in a chain, and in one chain only
// unless it is call syntax.
func tokenize(v *vocab, texts [][]string, nl, imEnd int) ([][]int32, error) {
	seen := map[int]string{nl: "\n", imEnd: "<|im_end|>"}
	var chains [][]int32
	for _, chain := range texts {
		mine := map[int]bool{}
		var ids []int32
		for _, t := range chain {
			if t == "" {
				return nil, errors.New("the script has an empty fragment")
			}
			id, err := v.addUserToken(t)
			if err != nil {
				return nil, err
			}
			if prev, dup := seen[id]; mine[id] || (dup && !callSyntax[t]) {
				return nil, fmt.Errorf("the fragment %q is said twice (or is %q): each fragment must be distinct", t, prev)
			}
			seen[id], mine[id] = t, true
			ids = append(ids, int32(id))
		}
		chains = append(chains, append(ids, int32(imEnd)))
	}
	return chains, nil
}

// codes numbers each token that leads to another (the newline ending the
// prompt first): its one-hot code in the residual stream.
func codes(chains [][]int32, nl int) map[int]int {
	code := map[int]int{nl: 0}
	for _, chain := range chains {
		for _, id := range chain[:len(chain)-1] {
			if _, ok := code[int(id)]; !ok {
				code[int(id)] = len(code)
			}
		}
	}
	return code
}

// wire is the output matrix: each token's code points at the token that
// follows it (once, however many chains share the pair). Where a token
// leads to different ones by step, each gets the flags' weights of the
// steps it is said in, so that the flags pick it: with one call, the
// tool-result flag (−β: no result yet, +β: the answer); with two, the
// second flag too, so that (f1, f2) = (−,−) picks step 0, (+,−) step 1
// and (+,+) step 2, by a margin of β each. gated (Script.IfOffered): the
// second flag says the tool is offered, and the call is picked only at
// (f1, f2) = (−,+) (offerWeights).
func wire(chains [][]int32, nl int, code map[int]int, nVocab int, gated bool) []float32 {
	out := make([]float32, nVocab*nEmbd)
	next := map[int]map[int][]int{} // token → the token after it → the steps
	for k, chain := range chains {
		prev := nl
		for _, id := range chain {
			if next[prev] == nil {
				next[prev] = map[int][]int{}
			}
			next[prev][int(id)] = append(next[prev][int(id)], k)
			prev = int(id)
		}
	}
	for prev, after := range next {
		steps := 0
		for _, ks := range after {
			steps += len(ks)
		}
		for id, ks := range after {
			out[id*nEmbd+code[prev]] += alpha
			if len(after) == 1 {
				continue
			}
			for _, k := range ks {
				f1, f2, b := stepWeights(k, steps)
				if gated {
					f1, f2, b = offerWeights(k)
				}
				out[id*nEmbd+dimFlag] += f1
				out[id*nEmbd+dimFlag2] += f2
				out[id*nEmbd+dimBias] += b
			}
		}
	}
	return out
}

// stepWeights are the weights on the two flags of the token said at step
// k where a choice among steps is made (steps 2: the call's name, or one
// call and the answer; 3: two calls and the answer).
func stepWeights(k, steps int) (f1, f2, bias float32) {
	if steps < 3 {
		return [2]float32{-beta, beta}[k], 0, 0
	}
	return [3]float32{-beta, beta, beta}[k], [3]float32{0, -beta, beta}[k], 0
}

// secondDetector is the second layer's attention head: like the first,
// it looks for one token anywhere in the prompt (the second call's name,
// by its code), and writes +1 into dimFlag2 when it is there, −1 if not.
// Its input holds three set dimensions (the constant, the token's own and
// the first flag), so after the norm each is √(64/3) = 4.62: score
// 4.62²·3.2²/8 ≈ 27 on the name.
func secondDetector(marker int) (wq, wk, wv, wo []float32) {
	const s = 4.6188022 // √(64/3)
	wq, wk, wv, wo = make([]float32, nEmbd*nEmbd), make([]float32, nEmbd*nEmbd), make([]float32, nEmbd*nEmbd), make([]float32, nEmbd*nEmbd)
	wq[headQK*nEmbd+dimBias] = 3.2
	wk[headQK*nEmbd+marker] = 3.2
	wv[0*nEmbd+marker] = 2 / s
	wv[0*nEmbd+dimBias] = -1 / s
	wo[dimFlag2*nEmbd+0] = 1
	return wq, wk, wv, wo
}

// MemoryScript saves a memory with the memory tool (remember), then
// answers; offered no memory tool (a temporary chat, memory off), it
// answers at once.
func MemoryScript() Script {
	return Script{
		Calls:     []Call{{Before: []string{"I will", " remember that."}, Name: "memory", Args: []string{`{"action": "remember", `, `"text": "Prefers metric units."}`}}},
		Answer:    []string{"Noted:", " metric units", " from now on."},
		IfOffered: true,
	}
}

// CanvasScript creates a textdoc with create_textdoc, then rewrites a
// line of it with update_textdoc, one call a turn, then answers. The
// arguments' keys are in the order of the schema rehome sends (its
// properties, as Go writes a map: sorted), which llama-server's tool
// grammar holds a call to.
func CanvasScript() Script {
	return Script{
		Calls: []Call{
			{Before: []string{"I open", " a canvas."}, Name: "create_textdoc", Args: []string{`{"content": "Day 1: Paris", `, `"name": "plan", "type": "document"}`}},
			{Before: []string{"Now I", " edit it."}, Name: "update_textdoc", Args: []string{`{"updates": [{"pattern": "Paris", `, `"replacement": "Lyon"}]}`}},
		},
		Answer: []string{"The plan", " is in the canvas."},
	}
}

// CodeCanvasScript creates a code/python textdoc with create_textdoc (a
// line that prints 42), then answers: the canvas a user runs in the
// conversation's sandbox session.
func CodeCanvasScript() Script {
	return Script{
		Calls:  []Call{{Before: []string{"I write", " the code."}, Name: "create_textdoc", Args: []string{`{"content": "print(6 * 7)", `, `"name": "answer", "type": "code/python"}`}}},
		Answer: []string{"Run it", " in the canvas."},
	}
}

// VisionScript answers at once, in words about a chart: its one call is
// of a tool no chat offers (IfOffered), so the model never makes it. With
// the tiny projector (WriteProjector), the model a test sends an image.
func VisionScript() Script {
	return Script{
		Calls:     []Call{{Name: "never_offered", Args: []string{`{}`}}},
		Answer:    []string{"The chart", " shows bars."},
		IfOffered: true,
	}
}
