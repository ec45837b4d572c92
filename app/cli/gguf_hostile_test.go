package cli

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileGGUF writes a GGUF v3 file with the llama figures rehome needs,
// one f32 tensor and what extra adds (metadata entries, tensor entries).
func hostileGGUF(t *testing.T, path string, extraKV func(b *bytes.Buffer) int, dims []uint64) {
	var kv bytes.Buffer
	str := func(b *bytes.Buffer, s string) {
		binary.Write(b, binary.LittleEndian, uint64(len(s)))
		b.WriteString(s)
	}
	n := 0
	u32 := func(k string, v uint32) {
		str(&kv, k)
		binary.Write(&kv, binary.LittleEndian, uint32(4))
		binary.Write(&kv, binary.LittleEndian, v)
		n++
	}
	str(&kv, "general.architecture")
	binary.Write(&kv, binary.LittleEndian, uint32(8))
	str(&kv, "llama")
	n++
	for _, k := range []string{"llama.block_count", "llama.embedding_length", "llama.attention.head_count", "llama.attention.head_count_kv", "llama.vocab_size"} {
		u32(k, 8)
	}
	if extraKV != nil {
		n += extraKV(&kv)
	}
	var b bytes.Buffer
	b.WriteString("GGUF")
	binary.Write(&b, binary.LittleEndian, uint32(3))
	binary.Write(&b, binary.LittleEndian, uint64(1))
	binary.Write(&b, binary.LittleEndian, uint64(n))
	b.Write(kv.Bytes())
	str(&b, "blk.0.attn_q.weight")
	binary.Write(&b, binary.LittleEndian, uint32(len(dims)))
	for _, d := range dims {
		binary.Write(&b, binary.LittleEndian, d)
	}
	binary.Write(&b, binary.LittleEndian, uint32(0))
	binary.Write(&b, binary.LittleEndian, uint64(0))
	for b.Len()%32 != 0 {
		b.WriteByte(0)
	}
	b.Write(make([]byte, 256))
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The red team's hostile GGUF headers — a tensor dimension of 2^62 and an
// array of arrays — are refused in one line by `rehome models add` and
// `rehome fit --gguf`, with no Go stack trace. On 1c9eba1 both panicked
// ("uint64 overflow in Elements", "invalid type: Array").
func TestHostileGGUFNeverPanicsInTheTerminal(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"dim.gguf": "2^48 elements", "nested.gguf": "array of arrays"}
	hostileGGUF(t, filepath.Join(dir, "dim.gguf"), nil, []uint64{1 << 62, 4})
	hostileGGUF(t, filepath.Join(dir, "nested.gguf"), func(b *bytes.Buffer) int {
		binary.Write(b, binary.LittleEndian, uint64(len("llama.feed_forward_length")))
		b.WriteString("llama.feed_forward_length")
		for _, v := range []any{uint32(9), uint32(9), uint64(1), uint32(4), uint64(1), uint32(7)} {
			binary.Write(b, binary.LittleEndian, v)
		}
		return 1
	}, []uint64{8, 8})
	home := t.TempDir()
	for name, words := range files {
		p := filepath.Join(dir, name)
		for _, args := range [][]string{{"models", "add", p}, {"fit", "--gguf", p}} {
			r := rehomeCLI(t, home, args...)
			out := r.stdout + r.stderr
			if r.code != 1 || strings.Contains(out, "goroutine ") || strings.Contains(out, "panic") || !strings.Contains(out, words) {
				t.Errorf("rehome %v: exit %d\n%s", args, r.code, out[:min(len(out), 2000)])
			}
		}
	}
}
