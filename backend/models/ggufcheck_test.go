package models

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileGGUFs are GGUF headers that crashed rehome on 1c9eba1 (the first
// two: "uint64 overflow in Elements", "invalid type: Array") or would make
// the parser allocate what the header claims.
func hostileGGUFs(t testing.TB, dir string) map[string]string {
	out := map[string]string{}
	add := func(name string, edit func(w *ggufWriter)) {
		w := &ggufWriter{}
		w.kvString("general.architecture", "llama")
		w.kvU32("llama.block_count", 1)
		w.kvU32("llama.embedding_length", 8)
		w.kvU32("llama.attention.head_count", 1)
		w.kvU32("llama.attention.head_count_kv", 1)
		w.kvU32("llama.vocab_size", 8)
		w.tensor("token_embd.weight", tF32, 8, 8)
		edit(w)
		p := filepath.Join(dir, name+".gguf")
		if err := w.write(p); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	add("dimension-2^62", func(w *ggufWriter) {
		w.tensors = append(w.tensors, ggufTensor{name: "blk.0.attn_q.weight", dims: []int64{1 << 62, 4}, typ: tF32, bytes: 32})
	})
	add("nested-arrays", func(w *ggufWriter) {
		w.str(&w.kv, "llama.feed_forward_length")
		binary.Write(&w.kv, binary.LittleEndian, uint32(9)) // array
		binary.Write(&w.kv, binary.LittleEndian, uint32(9)) // of arrays
		binary.Write(&w.kv, binary.LittleEndian, int64(1))
		binary.Write(&w.kv, binary.LittleEndian, uint32(4)) // of uint32
		binary.Write(&w.kv, binary.LittleEndian, int64(1))
		binary.Write(&w.kv, binary.LittleEndian, uint32(7))
		w.nkv++
	})
	add("split-count-2^40", func(w *ggufWriter) {
		w.str(&w.kv, "split.tensors.count")
		binary.Write(&w.kv, binary.LittleEndian, uint32(10))
		binary.Write(&w.kv, binary.LittleEndian, uint64(1<<40))
		w.nkv++
	})
	add("string-2^40", func(w *ggufWriter) {
		w.str(&w.kv, "general.name")
		binary.Write(&w.kv, binary.LittleEndian, uint32(8))
		binary.Write(&w.kv, binary.LittleEndian, int64(1<<40))
		w.nkv++
	})
	add("five-dimensions", func(w *ggufWriter) {
		w.tensors = append(w.tensors, ggufTensor{name: "blk.0.x", dims: []int64{2, 2, 2, 2, 2}, typ: tF32, bytes: 128})
	})
	return out
}

// No hostile header panics, and each is refused in words.
func TestHostileGGUFHeadersAreRefused(t *testing.T) {
	for name, p := range hostileGGUFs(t, t.TempDir()) {
		_, _, err := FromGGUF(p)
		if err == nil || !strings.Contains(err.Error(), "not a readable GGUF model file") {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if strings.Contains(err.Error(), "damaged header: ") && !strings.Contains(err.Error(), "refused") {
			t.Logf("%s: refused only by recovering from a panic: %v", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
	// The honest file still reads.
	path, _, _, _ := tinyLlama(t, t.TempDir())
	if err := checkGGUFHeader(path); err != nil {
		t.Fatal(err)
	}
}

// FuzzGGUFHeader feeds GGUF headers to the check and the parser: nothing
// may panic past them (fromGGUF has no recover of its own).
func FuzzGGUFHeader(f *testing.F) {
	dir := f.TempDir()
	path, _, _, _ := tinyLlama(f, dir)
	honest, _ := os.ReadFile(path)
	f.Add(honest[:min(len(honest), 4096)])
	for _, p := range hostileGGUFs(f, dir) {
		b, _ := os.ReadFile(p)
		f.Add(b[:min(len(b), 4096)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.gguf")
		os.WriteFile(p, append(data, bytes.Repeat([]byte{0}, 256)...), 0o600)
		fromGGUF(p)
	})
}
