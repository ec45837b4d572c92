package cli

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pngBomb is a PNG whose header claims w × h pixels, with a few bytes.
func pngBomb(w, h uint32) []byte {
	chunk := func(kind string, data []byte) []byte {
		var b bytes.Buffer
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(kind)
		b.Write(data)
		binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(kind), data...)))
		return b.Bytes()
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6
	out := append([]byte("\x89PNG\r\n\x1a\n"), chunk("IHDR", ihdr)...)
	out = append(out, chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(out, chunk("IEND", nil)...)
}

// The editor's fields from the terminal: `assistants edit` sets the
// welcome message, the default model and the picture, `show` prints
// them; a 30000 px picture and a decompression bomb are refused in words.
func TestAssistantsEditorFields(t *testing.T) {
	home := t.TempDir()
	a := addAssistant(t, home, "--name", "Analyst")
	id := a["id"].(string)
	dir := t.TempDir()
	pic := filepath.Join(dir, "me.png")
	var b bytes.Buffer
	png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 600, 300)))
	os.WriteFile(pic, b.Bytes(), 0o600)
	r := rehomeCLI(t, home, "assistants", "edit", id, "--welcome", "Hello! Drop a CSV.", "--model", "qwen3:0.6b", "--picture", pic)
	if r.code != 0 {
		t.Fatalf("edit: %+v", r)
	}
	r = rehomeCLI(t, home, "assistants", "show", id)
	for _, want := range []string{"Welcome:       Hello! Drop a CSV.", "Model:         qwen3:0.6b", "Picture:       PNG, "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, r.stdout)
		}
	}
	side, bomb := filepath.Join(dir, "side.png"), filepath.Join(dir, "bomb.png")
	os.WriteFile(side, pngBomb(30000, 8), 0o600)
	os.WriteFile(bomb, pngBomb(11000, 11000), 0o600)
	wantUsageError(t, rehomeCLI(t, home, "assistants", "edit", id, "--picture", side), "30000 × 8 pixels, at most 12000 on a side")
	wantUsageError(t, rehomeCLI(t, home, "assistants", "edit", id, "--picture", bomb), "121 million pixels, at most 40 million")
	if r := rehomeCLI(t, home, "assistants", "edit", id, "--picture", "", "--model", ""); r.code != 0 {
		t.Fatalf("remove: %+v", r)
	}
	if r := rehomeCLI(t, home, "assistants", "show", id); strings.Contains(r.stdout, "Picture:") || strings.Contains(r.stdout, "Model:") {
		t.Fatalf("picture and model not removed:\n%s", r.stdout)
	}
}
