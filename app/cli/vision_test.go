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

	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// pngChunk is one PNG chunk with its CRC.
func pngChunk(kind string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, uint32(len(data)))
	b.WriteString(kind)
	b.Write(data)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(kind), data...)))
	return b.Bytes()
}

// rehome ask --image: hostile images refused in words before any model is
// asked (a decompression bomb claiming 30,000 × 30,000, a PNG cut short,
// a text file); with the real llama-server's tiny model, which reads no
// images, the image is not sent and the user is told.
func TestAskImageCLI(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], 30000)
	binary.BigEndian.PutUint32(ihdr[4:], 30000)
	ihdr[8], ihdr[9] = 8, 6
	bomb := append([]byte("\x89PNG\r\n\x1a\n"), pngChunk("IHDR", ihdr)...)
	bomb = append(append(bomb, pngChunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...), pngChunk("IEND", nil)...)
	var good bytes.Buffer
	png.Encode(&good, image.NewRGBA(image.Rect(0, 0, 64, 64)))
	files := map[string][]byte{"bomb.png": bomb, "cut.png": good.Bytes()[:good.Len()/2], "notes.png": []byte("just text"), "chart.png": good.Bytes()}
	for name, data := range files {
		os.WriteFile(filepath.Join(dir, name), data, 0o600)
	}
	for name, want := range map[string]string{
		"bomb.png":  "30000 × 30000 pixels, at most 12000 on a side",
		"cut.png":   "the image is damaged",
		"notes.png": "give a PNG, JPEG, WebP or GIF",
	} {
		r := rehomeCLI(t, home, "ask", "--server", "http://127.0.0.1:9/v1", "--image", filepath.Join(dir, name), "What is in it?")
		if r.code != 1 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, name) {
			t.Errorf("%s: %+v", name, r)
		}
	}
	needPodman(t)
	model := llamatest.Start(t, tinymodel.MemoryScript())
	r := rehomeCLI(t, home, "ask", "--server", model.URL, "--model", llamatest.Alias, "--image", filepath.Join(dir, "chart.png"), "What does the chart show?")
	if r.code != 1 || !strings.Contains(r.stderr, "rehome-tiny does not read images (so the images were not sent)") {
		t.Fatalf("a model that reads no images: %+v", r)
	}
}
