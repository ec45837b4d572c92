package tinymodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Script is what the model says.
type Script struct {
	// Before is text said before the call, in fragments (may be empty).
	Before []string
	// Code is the Python the call runs, in the fragments it streams in
	// (raw code: the generator escapes it as a JSON string).
	Code []string
	// Calls, when set, are said instead of the python call: the first
	// with no tool result in the prompt, the second (at most two) once a
	// tool result is there but the second call is not yet — one model
	// turn each, as a model working through an API does.
	Calls []Call
	// Answer is said, in fragments, when a tool result is in the prompt
	// (with two Calls, once the second call is there too).
	Answer []string
	// IfOffered, with one named call, makes the call only when the
	// prompt offers its tool (the chat template lists it); a prompt that
	// does not gets the answer at once, as from a model not offered the
	// tool (llama-server's tool grammar would not let it call one
	// anyway: the call's name is held to the tools offered).
	IfOffered bool
}

// Call is a call of a named tool: what is said before it and its
// arguments, a JSON object, in the fragments they stream in. Each
// call's fragments are its own (the call syntax around them is shared).
type Call struct {
	Before []string
	Name   string
	Args   []string
}

// DefaultScript reads /mnt/data/<csv> with pandas, prints a summary and
// shows a bar chart of column value summed by column group; then answers.
func DefaultScript(csv, group, value string) Script {
	return Script{
		Before: []string{"I will load " + csv, " and summarise it."},
		Code: []string{
			"import pandas as pd\n",
			"import matplotlib.pyplot as plt\n",
			"df = pd.read_csv('/mnt/data/" + csv + "')\n",
			"print(df.describe())\n",
			"df.groupby('" + group + "')['" + value + "'].sum().plot(kind='bar', title='" + value + " by " + group + "')\n",
			"plt.show()",
		},
		Answer: []string{
			"The summary of " + csv,
			" is above: count, mean, spread and range of " + value + ";",
			" the bar chart shows " + value,
			" summed by " + group + ".",
		},
	}
}

// Shape of the model.
const (
	nEmbd  = 64
	nFF    = 32
	nLayer = 2
	nCtx   = 8192

	// Residual-stream dimensions: [0, maxCodes) one-hot codes of the
	// fragments, then the marker of <tool_response>, the filler of every
	// other token, the flag the attention head writes, and a constant.
	maxCodes = 56
	dimTR    = 56
	dimFill  = 57
	dimFlag  = 58
	dimBias  = 59

	// Head dimensions the detector uses: the last rope pair, whose
	// rotation at freq_base 1e6 is ~1.6e-6 rad per position.
	headQK = 62

	// Logit scales: a fragment's successor gets about 4.6·alpha, the flag
	// moves the first token by ±4.6·beta.
	alpha = 200
	beta  = 50
)

// Template file names inside a llama.cpp source tree.
const (
	VocabFile    = "ggml-vocab-qwen2.gguf"
	TemplateFile = "Qwen-Qwen2.5-7B-Instruct.jinja"
)

// Token types (llama_token_type).
const (
	tokNormal      = 1
	tokControl     = 3
	tokUserDefined = 4
)

// Model is a generated model, before it is written.
type Model struct {
	meta    []kv
	tensors []*tensor
	// Call and Answer are the token ids the model says, for each case:
	// the (first) call, from the token after the prompt to <|im_end|>,
	// and the answer.
	Call, Answer []int32
	// Steps are the chains in order: each call, then the answer.
	Steps [][]int32
	// Marker is the second call's name token, whose presence in the
	// prompt says the second call was made (0 with one call).
	Marker int32
	// ToolResponse is the <tool_response> token the detector looks for.
	ToolResponse int32
	// Offer is the token of the call's tool as the chat template lists
	// it among the tools offered (0 unless Script.IfOffered).
	Offer int32
}

// vocab is the tokenizer being extended.
type vocab struct {
	tokens []any // strings
	types  []any // int32
	byText map[string]int
	free   []int // padding slots, in order
}

func (v *vocab) id(text string) (int, bool) {
	i, ok := v.byText[text]
	return i, ok
}

// addUserToken gives text a token: its own when the vocabulary has it as
// a single token already, else the next padding slot, made user-defined.
func (v *vocab) addUserToken(text string) (int, error) {
	if i, ok := v.byText[byteLevel(text)]; ok && v.types[i].(int32) == tokNormal {
		return i, nil
	}
	if i, ok := v.byText[text]; ok && v.types[i].(int32) != tokNormal {
		return i, nil
	}
	if len(v.free) == 0 {
		return 0, errors.New("the vocabulary has no padding slots left for the script's fragments")
	}
	i := v.free[0]
	v.free = v.free[1:]
	delete(v.byText, v.tokens[i].(string))
	v.tokens[i] = text
	v.types[i] = int32(tokUserDefined)
	v.byText[text] = i
	return i, nil
}

// setSlot puts text at slot i (a padding slot), as Qwen2.5 numbers its
// added tokens.
func (v *vocab) setSlot(i int, text string) error {
	if i >= len(v.tokens) || !strings.HasPrefix(v.tokens[i].(string), "[PAD") {
		return fmt.Errorf("token %d is not a padding slot", i)
	}
	for k, f := range v.free {
		if f == i {
			v.free = append(v.free[:k], v.free[k+1:]...)
			break
		}
	}
	delete(v.byText, v.tokens[i].(string))
	v.tokens[i] = text
	v.types[i] = int32(tokUserDefined)
	v.byText[text] = i
	return nil
}

// byteLevel is text in GPT-2's byte-level alphabet, as BPE vocabularies
// store their normal tokens.
func byteLevel(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		b.WriteRune(byteRune[c])
	}
	return b.String()
}

var byteRune = func() [256]rune {
	var t [256]rune
	n := 0
	for c := 0; c < 256; c++ {
		if (c >= '!' && c <= '~') || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE && c <= 0xFF) {
			t[c] = rune(c)
		} else {
			t[c] = rune(256 + n)
			n++
		}
	}
	return t
}()

// jsonString is s escaped as the inside of a JSON string (no HTML escapes,
// as Python's json.dumps and llama-server's own JSON write it).
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// Build makes the model from a llama.cpp source tree's Qwen2 vocabulary
// and Qwen2.5 chat template (the files VocabFile and TemplateFile in dir,
// or under models/ and models/templates/ of a source checkout).
func Build(dir string, s Script) (*Model, error) {
	vocabPath, tmplPath := sourceFiles(dir)
	tmpl, err := os.ReadFile(tmplPath)
	if err != nil {
		return nil, fmt.Errorf("the Qwen2.5 chat template: %w", err)
	}
	meta, err := readMetadata(vocabPath)
	if err != nil {
		return nil, fmt.Errorf("the Qwen2 vocabulary: %w", err)
	}
	if _, err := s.texts(); err != nil {
		return nil, err
	}
	v := &vocab{byText: map[string]int{}}
	var tokenizer []kv
	for _, e := range meta {
		switch {
		case e.Key == "tokenizer.ggml.tokens":
			v.tokens = append([]any{}, e.Value.(array).Items...)
		case e.Key == "tokenizer.ggml.token_type":
			v.types = append([]any{}, e.Value.(array).Items...)
		case e.Key == "tokenizer.chat_template":
		case strings.HasPrefix(e.Key, "tokenizer.ggml.") && !strings.HasSuffix(e.Key, "_token_id"):
			tokenizer = append(tokenizer, e)
		}
	}
	if len(v.tokens) == 0 || len(v.tokens) != len(v.types) {
		return nil, fmt.Errorf("%s holds no usable token list", vocabPath)
	}
	for i, t := range v.tokens {
		text := t.(string)
		v.byText[text] = i
		if strings.HasPrefix(text, "[PAD") && v.types[i].(int32) == tokUserDefined {
			v.free = append(v.free, i)
		}
	}
	// Qwen2.5's numbering of the tool tokens.
	for id, text := range map[int]string{151657: "<tool_call>", 151658: "</tool_call>"} {
		if err := v.setSlot(id, text); err != nil {
			return nil, err
		}
	}
	nl, ok1 := v.id(byteLevel("\n"))
	imEnd, ok2 := v.id("<|im_end|>")
	endText, ok3 := v.id("<|endoftext|>")
	if !ok1 || !ok2 || !ok3 {
		return nil, fmt.Errorf("%s is not Qwen2's vocabulary (no newline, <|im_end|> or <|endoftext|> token)", vocabPath)
	}
	tr, err := v.addUserToken("<tool_response>")
	if err != nil {
		return nil, err
	}
	m := &Model{ToolResponse: int32(tr)}
	if _, err := v.addUserToken("</tool_response>"); err != nil {
		return nil, err
	}

	// The chains, one per step (each call, then the answer), as tokens.
	texts, err := s.texts()
	if err != nil {
		return nil, err
	}
	if m.Steps, err = tokenize(v, texts, nl, imEnd); err != nil {
		return nil, err
	}
	if s.IfOffered {
		if m.Offer, err = offerToken(v, s.Calls[0].Name); err != nil {
			return nil, err
		}
	}
	m.Call, m.Answer = m.Steps[0], m.Steps[len(m.Steps)-1]
	nVocab := len(v.tokens)
	code := codes(m.Steps, nl)
	if len(code) >= maxCodes {
		return nil, fmt.Errorf("the script has %d fragments; at most %d fit", len(code), maxCodes-1)
	}
	// Embeddings: every token has norm √2 (so RMS norm scales all alike):
	// the constant plus its code, the <tool_response> marker or the filler.
	embd := make([]float32, nVocab*nEmbd)
	for t := 0; t < nVocab; t++ {
		row := embd[t*nEmbd : (t+1)*nEmbd]
		row[dimBias] = 1
		switch c, ok := code[t]; {
		case ok:
			row[c] = 1
		case t == tr:
			row[dimTR] = 1
		case m.Offer != 0 && t == int(m.Offer):
			row[dimOffer] = 1
		default:
			row[dimFill] = 1
		}
	}
	// Output: each fragment's code points at the next token; where a
	// token leads to different ones by step (the newline ending the
	// prompt, the call's name), the flags decide.
	out := wire(m.Steps, nl, code, nVocab, s.IfOffered)

	// The detector. After the attention norm each set dimension is
	// √(64/2) = 5.657. Query: the constant; key: the marker; score on
	// <tool_response> = 5.657²·3.2²/8 ≈ 41 (weight ≈ 1), 0 elsewhere
	// (uniform). Value: +1 on <tool_response>, −1 on any other token, so
	// the head writes +1 when a tool result is in the prompt, −1 if not.
	const unit = 0.17677669 // 1/√32
	wq := make([]float32, nEmbd*nEmbd)
	wk := make([]float32, nEmbd*nEmbd)
	wv := make([]float32, nEmbd*nEmbd)
	wo := make([]float32, nEmbd*nEmbd)
	wq[headQK*nEmbd+dimBias] = 3.2
	wk[headQK*nEmbd+dimTR] = 3.2
	wv[0*nEmbd+dimTR] = 2 * unit
	wv[0*nEmbd+dimBias] = -unit
	wo[dimFlag*nEmbd+0] = 1

	ones := func() []float32 {
		o := make([]float32, nEmbd)
		for i := range o {
			o[i] = 1
		}
		return o
	}
	mat := func(name string, in, outDim int, data []float32) *tensor {
		if data == nil {
			data = make([]float32, in*outDim)
		}
		return &tensor{Name: name, Shape: []uint64{uint64(in), uint64(outDim)}, Type: ggmlF16, Data: data}
	}
	vec := func(name string) *tensor {
		return &tensor{Name: name, Shape: []uint64{nEmbd}, Type: ggmlF32, Data: ones()}
	}
	m.tensors = []*tensor{
		{Name: "token_embd.weight", Shape: []uint64{nEmbd, uint64(nVocab)}, Type: ggmlF16, Data: embd},
		vec("output_norm.weight"),
		{Name: "output.weight", Shape: []uint64{nEmbd, uint64(nVocab)}, Type: ggmlF16, Data: out},
	}
	for l := 0; l < nLayer; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		q, k, vv, o := wq, wk, wv, wo
		if l > 0 {
			q, k, vv, o = nil, nil, nil, nil
			switch {
			case len(m.Steps) == 3:
				// The second detector: has the second call been made?
				m.Marker = m.Steps[1][len(m.Steps[1])-len(s.Calls[1].Args)-4] // before the arguments, }\n, </tool_call>, <|im_end|>
				q, k, vv, o = secondDetector(code[int(m.Marker)])
			case s.IfOffered:
				// The offer detector: is the call's tool offered?
				q, k, vv, o = secondDetector(dimOffer)
			}
		}
		m.tensors = append(m.tensors,
			vec(p+"attn_norm.weight"),
			mat(p+"attn_q.weight", nEmbd, nEmbd, q),
			mat(p+"attn_k.weight", nEmbd, nEmbd, k),
			mat(p+"attn_v.weight", nEmbd, nEmbd, vv),
			mat(p+"attn_output.weight", nEmbd, nEmbd, o),
			vec(p+"ffn_norm.weight"),
			mat(p+"ffn_gate.weight", nEmbd, nFF, nil),
			mat(p+"ffn_up.weight", nEmbd, nFF, nil),
			mat(p+"ffn_down.weight", nFF, nEmbd, nil),
		)
	}

	m.meta = []kv{
		{"general.architecture", ggufString, "llama"},
		{"general.name", ggufString, "rehome tiny tool caller"},
		{"general.description", ggufString, "weights set by hand by rehome's tests (internal/testsupport/tinymodel): calls python, then answers"},
		{"general.file_type", ggufUint32, uint32(1)},
		{"llama.context_length", ggufUint32, uint32(nCtx)},
		{"llama.embedding_length", ggufUint32, uint32(nEmbd)},
		{"llama.block_count", ggufUint32, uint32(nLayer)},
		{"llama.feed_forward_length", ggufUint32, uint32(nFF)},
		{"llama.attention.head_count", ggufUint32, uint32(1)},
		{"llama.attention.head_count_kv", ggufUint32, uint32(1)},
		{"llama.rope.dimension_count", ggufUint32, uint32(nEmbd)},
		{"llama.rope.freq_base", ggufFloat32, float32(1e6)},
		{"llama.attention.layer_norm_rms_epsilon", ggufFloat32, float32(1e-6)},
		{"llama.vocab_size", ggufUint32, uint32(nVocab)},
	}
	m.meta = append(m.meta, tokenizer...)
	m.meta = append(m.meta,
		kv{"tokenizer.ggml.tokens", ggufArray, array{Type: ggufString, Items: v.tokens}},
		kv{"tokenizer.ggml.token_type", ggufArray, array{Type: ggufInt32, Items: v.types}},
		kv{"tokenizer.ggml.bos_token_id", ggufUint32, uint32(endText)},
		kv{"tokenizer.ggml.eos_token_id", ggufUint32, uint32(imEnd)},
		kv{"tokenizer.ggml.padding_token_id", ggufUint32, uint32(endText)},
		kv{"tokenizer.ggml.add_bos_token", ggufBool, false},
		kv{"tokenizer.chat_template", ggufString, string(tmpl)},
	)
	return m, nil
}

// AsEmbedder makes the model an embedding model as a GGUF says so: mean
// pooling (llama.pooling_type 1) and attention that is not causal
// (llama.attention.causal false), which is how rehome (and llama.cpp)
// tell an embedding model from a chat model. Its embedding of a text is
// then, after pooling, the constant and flag every token carries plus
// the script's fragments it holds, as one-hot codes.
func (m *Model) AsEmbedder() {
	for i := range m.meta {
		if m.meta[i].Key == "general.name" {
			m.meta[i].Value = "rehome tiny embedder"
		}
	}
	m.meta = append(m.meta,
		kv{"llama.pooling_type", ggufUint32, uint32(1)},
		kv{"llama.attention.causal", ggufBool, false},
	)
}

// SetMeta sets (or adds) a header key, as a converter writes it: a
// string, a uint32, a bool or a []string (an array of strings); it lets
// a test write the headers of other kinds of model (a causal embedding
// model's pooling type, general.tags, general.name).
func (m *Model) SetMeta(key string, value any) {
	var e kv
	switch v := value.(type) {
	case string:
		e = kv{key, ggufString, v}
	case uint32:
		e = kv{key, ggufUint32, v}
	case bool:
		e = kv{key, ggufBool, v}
	case []string:
		items := make([]any, len(v))
		for i, x := range v {
			items[i] = x
		}
		e = kv{key, ggufArray, array{Type: ggufString, Items: items}}
	default:
		panic(fmt.Sprintf("tinymodel: SetMeta cannot write a %T", value))
	}
	for i := range m.meta {
		if m.meta[i].Key == key {
			m.meta[i] = e
			return
		}
	}
	m.meta = append(m.meta, e)
}

// sourceFiles finds the vocabulary and the template in dir: side by side,
// or where a llama.cpp checkout keeps them.
func sourceFiles(dir string) (vocab, tmpl string) {
	vocab = filepath.Join(dir, VocabFile)
	if _, err := os.Stat(vocab); err != nil {
		vocab = filepath.Join(dir, "models", VocabFile)
	}
	tmpl = filepath.Join(dir, TemplateFile)
	if _, err := os.Stat(tmpl); err != nil {
		tmpl = filepath.Join(dir, "models", "templates", TemplateFile)
	}
	return vocab, tmpl
}

// WriteFile writes the model as a GGUF file (atomically: a temporary file
// renamed into place).
func (m *Model) WriteFile(path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tinymodel-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := writeGGUF(tmp, m.meta, m.tensors); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
