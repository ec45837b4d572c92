package models

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ggufWriter writes a minimal, valid GGUF v3 file (the format of
// ggml/docs/gguf.md): header, metadata, tensor table, aligned data.
type ggufWriter struct {
	kv      bytes.Buffer
	nkv     int64
	tensors []ggufTensor
}

type ggufTensor struct {
	name  string
	dims  []int64
	typ   uint32 // ggml type id
	bytes int64
}

func (w *ggufWriter) str(b *bytes.Buffer, s string) {
	binary.Write(b, binary.LittleEndian, int64(len(s)))
	b.WriteString(s)
}

func (w *ggufWriter) kvString(k, v string) {
	w.str(&w.kv, k)
	binary.Write(&w.kv, binary.LittleEndian, uint32(8))
	w.str(&w.kv, v)
	w.nkv++
}

func (w *ggufWriter) kvU32(k string, v uint32) {
	w.str(&w.kv, k)
	binary.Write(&w.kv, binary.LittleEndian, uint32(4))
	binary.Write(&w.kv, binary.LittleEndian, v)
	w.nkv++
}

func (w *ggufWriter) kvF32(k string, v float32) {
	w.str(&w.kv, k)
	binary.Write(&w.kv, binary.LittleEndian, uint32(6))
	binary.Write(&w.kv, binary.LittleEndian, v)
	w.nkv++
}

func (w *ggufWriter) kvStrings(k string, vs []string) {
	w.str(&w.kv, k)
	binary.Write(&w.kv, binary.LittleEndian, uint32(9))
	binary.Write(&w.kv, binary.LittleEndian, uint32(8))
	binary.Write(&w.kv, binary.LittleEndian, int64(len(vs)))
	for _, v := range vs {
		w.str(&w.kv, v)
	}
	w.nkv++
}

// ggml type ids and sizes used below.
const (
	tF32  = 0
	tF16  = 1
	tQ8_0 = 8
	tQ4_K = 12
	tQ6_K = 14
)

func (w *ggufWriter) tensor(name string, typ uint32, dims ...int64) {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	size := map[uint32]func(int64) int64{
		tF32: func(n int64) int64 { return n * 4 }, tF16: func(n int64) int64 { return n * 2 },
		tQ8_0: func(n int64) int64 { return n / 32 * 34 }, tQ4_K: func(n int64) int64 { return n / 256 * 144 },
		tQ6_K: func(n int64) int64 { return n / 256 * 210 },
	}[typ](n)
	w.tensors = append(w.tensors, ggufTensor{name, dims, typ, size})
}

func (w *ggufWriter) write(path string) error {
	var b bytes.Buffer
	b.WriteString("GGUF")
	binary.Write(&b, binary.LittleEndian, uint32(3))
	binary.Write(&b, binary.LittleEndian, int64(len(w.tensors)))
	binary.Write(&b, binary.LittleEndian, w.nkv)
	b.Write(w.kv.Bytes())
	var off int64
	for _, t := range w.tensors {
		w.str(&b, t.name)
		binary.Write(&b, binary.LittleEndian, uint32(len(t.dims)))
		for _, d := range t.dims {
			binary.Write(&b, binary.LittleEndian, d)
		}
		binary.Write(&b, binary.LittleEndian, t.typ)
		binary.Write(&b, binary.LittleEndian, off)
		off += (t.bytes + 31) / 32 * 32
	}
	for b.Len()%32 != 0 {
		b.WriteByte(0)
	}
	b.Write(make([]byte, off))
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// tinyLlama writes a 2-layer llama-architecture GGUF with mixed tensor
// types, and returns the bytes its tensors hold by part.
func tinyLlama(t testing.TB, dir string) (path string, embd, out int64, layers [2]int64) {
	t.Helper()
	w := &ggufWriter{}
	w.kvString("general.architecture", "llama")
	w.kvString("general.name", "Tiny Llama test")
	w.kvU32("general.file_type", 15) // MOSTLY_Q4_K_M
	w.kvU32("llama.context_length", 4096)
	w.kvU32("llama.embedding_length", 256)
	w.kvU32("llama.block_count", 2)
	w.kvU32("llama.feed_forward_length", 512)
	w.kvU32("llama.attention.head_count", 4)
	w.kvU32("llama.attention.head_count_kv", 2)
	w.kvF32("llama.attention.layer_norm_rms_epsilon", 1e-5)
	w.kvU32("llama.vocab_size", 64)
	toks := make([]string, 64)
	for i := range toks {
		toks[i] = "t" + string(rune('a'+i%26))
	}
	w.kvString("tokenizer.ggml.model", "gpt2")
	w.kvStrings("tokenizer.ggml.tokens", toks)

	w.tensor("token_embd.weight", tQ4_K, 256, 64)
	w.tensor("output.weight", tQ6_K, 256, 64)
	w.tensor("output_norm.weight", tF32, 256)
	for i := 0; i < 2; i++ {
		p := "blk." + string(rune('0'+i)) + "."
		w.tensor(p+"attn_norm.weight", tF32, 256)
		w.tensor(p+"attn_q.weight", tQ4_K, 256, 256)
		w.tensor(p+"attn_k.weight", tQ4_K, 256, 128)
		w.tensor(p+"attn_v.weight", tQ6_K, 256, 128)
		w.tensor(p+"attn_output.weight", tQ4_K, 256, 256)
		w.tensor(p+"ffn_norm.weight", tF32, 256)
		w.tensor(p+"ffn_gate.weight", tQ4_K, 256, 512)
		w.tensor(p+"ffn_up.weight", tQ4_K, 256, 512)
		w.tensor(p+"ffn_down.weight", tQ8_0, 512, 256)
	}
	for _, ts := range w.tensors {
		switch {
		case ts.name == "token_embd.weight":
			embd += ts.bytes
		case strings.HasPrefix(ts.name, "blk.0."):
			layers[0] += ts.bytes
		case strings.HasPrefix(ts.name, "blk.1."):
			layers[1] += ts.bytes
		default:
			out += ts.bytes
		}
	}
	path = filepath.Join(dir, "tiny-llama-Q4_K_M.gguf")
	if err := w.write(path); err != nil {
		t.Fatal(err)
	}
	return path, embd, out, layers
}

func TestFromGGUF(t *testing.T) {
	path, embd, out, layers := tinyLlama(t, t.TempDir())
	m, l, err := FromGGUF(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.Arch != "llama" || m.Layers != 2 || m.HiddenSize != 256 || m.Heads != 4 || m.KVHeads != 2 || m.HeadDim != 64 ||
		m.VocabSize != 64 || m.IntermediateSize != 512 || m.MaxContext != 4096 || m.Name != "Tiny Llama test" || m.TiedEmbeddings {
		t.Errorf("architecture read wrong: %+v", m)
	}
	if l.Quant != "Q4_K_M" || !l.Exact || l.TokenEmbdBytes != embd || l.OutputBytes != out || l.LayerBytes[0] != layers[0] || l.LayerBytes[1] != layers[1] {
		t.Errorf("layout %+v, want embd %d out %d layers %v", l, embd, out, layers)
	}
	if l.ByType["Q4_K"] == 0 || l.ByType["Q6_K"] == 0 || l.ByType["Q8_0"] == 0 || l.ByType["F32"] == 0 {
		t.Errorf("types %v", l.ByType)
	}
	st, _ := os.Stat(path)
	if l.FileBytes() != int64(st.Size()) {
		t.Errorf("file bytes %d, file is %d", l.FileBytes(), st.Size())
	}
	r, err := FitLayout(m, l, Options{Context: 1024}, ManualMachine(8<<30, 16<<30, 1, false))
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != VerdictGPU || r.WeightsBytes != embd+out+layers[0]+layers[1] || r.KVCacheBytes != 2*2*1024*2*64*2 {
		t.Errorf("fit %+v", r)
	}
	if !strings.Contains(r.Terms[0].Formula, "read from the GGUF file") {
		t.Errorf("weights term does not say it was read from the file: %q", r.Terms[0].Formula)
	}
}

func TestFromGGUFErrors(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := FromGGUF(filepath.Join(dir, "missing.gguf")); err == nil || !strings.Contains(err.Error(), "no file") {
		t.Errorf("missing: %v", err)
	}
	if _, _, err := FromGGUF(dir); err == nil || !strings.Contains(err.Error(), "folder") {
		t.Errorf("folder: %v", err)
	}
	junk := filepath.Join(dir, "model.safetensors")
	os.WriteFile(junk, []byte("{\"__metadata__\":{}}"+strings.Repeat("x", 100)), 0o644)
	if _, _, err := FromGGUF(junk); err == nil || !strings.Contains(err.Error(), "not a readable GGUF") {
		t.Errorf("junk: %v", err)
	}
	path, _, _, _ := tinyLlama(t, dir)
	data, _ := os.ReadFile(path)
	cut := filepath.Join(dir, "cut.gguf")
	os.WriteFile(cut, data[:200], 0o644)
	if _, _, err := FromGGUF(cut); err == nil {
		t.Error("a truncated header parsed")
	}
}
