package localmodels

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// header writes a GGUF (version 3) with no tensors and string keys:
// general.architecture = arch, and for a clip one clip.projector_type =
// mlp (the keys a projector's header holds first).
func header(arch string) []byte {
	keys := [][2]string{{"general.architecture", arch}}
	if arch == "clip" {
		keys = append(keys, [2]string{"clip.projector_type", "mlp"})
	}
	var b bytes.Buffer
	b.WriteString("GGUF")
	binary.Write(&b, binary.LittleEndian, uint32(3))
	binary.Write(&b, binary.LittleEndian, uint64(0)) // tensors
	binary.Write(&b, binary.LittleEndian, uint64(len(keys)))
	str := func(s string) {
		binary.Write(&b, binary.LittleEndian, uint64(len(s)))
		b.WriteString(s)
	}
	for _, kv := range keys {
		str(kv[0])
		binary.Write(&b, binary.LittleEndian, uint32(8)) // a string
		str(kv[1])
	}
	return b.Bytes()
}

// A projector is a "clip" GGUF: one is taken, anything else refused in
// words; the one beside a model is found, and none when two could be it.
func TestProjector(t *testing.T) {
	dir := t.TempDir()
	clip := filepath.Join(dir, "mmproj-model-f16.gguf")
	os.WriteFile(clip, header("clip"), 0o600)
	llama := filepath.Join(dir, "other.gguf")
	os.WriteFile(llama, header("llama"), 0o600)
	zip := filepath.Join(dir, "mmproj.zip.gguf")
	os.WriteFile(zip, []byte("PK\x03\x04 not a gguf"), 0o600)
	if p, n, err := inspectProjector(clip); err != nil || p != clip || n != int64(len(header("clip"))) {
		t.Fatalf("a clip GGUF: %q %d %v", p, n, err)
	}
	if _, _, err := inspectProjector(llama); !errors.Is(err, ErrNotGGUF) || !strings.Contains(err.Error(), `is a "llama" model, not an image projector`) {
		t.Fatalf("a llama GGUF: %v", err)
	}
	if _, _, err := inspectProjector(zip); !errors.Is(err, ErrNotGGUF) || !strings.Contains(err.Error(), "zip archive") {
		t.Fatalf("a zip: %v", err)
	}
	model := filepath.Join(dir, "gemma-3-4b-it-q4_k_m.gguf")
	os.WriteFile(model, header("gemma3"), 0o600)
	os.Remove(zip)
	if got := besideProjector(model); got != clip {
		t.Fatalf("beside: %q", got)
	}
	os.WriteFile(filepath.Join(dir, "mmproj-other.gguf"), header("clip"), 0o600)
	if got := besideProjector(model); got != "" {
		t.Fatalf("two projectors beside it: took %q", got)
	}
}
