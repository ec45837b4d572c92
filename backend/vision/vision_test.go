package vision

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func picture(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 200, 255})
		}
	}
	return img
}

// chunk is one PNG chunk with its CRC.
func chunk(kind string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, uint32(len(data)))
	b.WriteString(kind)
	b.Write(data)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(kind), data...)))
	return b.Bytes()
}

// bomb is a PNG whose header claims w × h pixels of RGBA, with a few
// bytes of data: what a decoder would allocate w*h*4 bytes for.
func bomb(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, chunk("IHDR", ihdr)...)
	out = append(out, chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(out, chunk("IEND", nil)...)
}

// withEXIF splices an APP1 Exif segment holding marker after a JPEG's SOI.
func withEXIF(jpg []byte, marker string) []byte {
	payload := append([]byte("Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08"), []byte(marker)...)
	seg := []byte{0xff, 0xe1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	seg = append(seg, payload...)
	return append(append(append([]byte{}, jpg[:2]...), seg...), jpg[2:]...)
}

func decoded(t *testing.T, im Image) (image.Image, []byte) {
	t.Helper()
	_, b64, ok := strings.Cut(im.DataURL, ";base64,")
	if !ok {
		t.Fatalf("not a data URL: %.40s", im.DataURL)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return img, raw
}

// Each format reads; EXIF is gone after the re-encoding; a large image is
// scaled to MaxSendSide; a GIF gives its first frame.
func TestFormats(t *testing.T) {
	var p, j bytes.Buffer
	png.Encode(&p, picture(40, 30))
	jpeg.Encode(&j, picture(3000, 1000), nil)
	jpg := withEXIF(j.Bytes(), "GPS 48.8584N 2.2945E Canon EOS secret-serial-123")
	if !bytes.Contains(jpg, []byte("secret-serial-123")) {
		t.Fatal("the fixture has no EXIF")
	}
	var g bytes.Buffer
	pal := color.Palette{color.Black, color.White}
	first := image.NewPaletted(image.Rect(0, 0, 8, 8), pal)
	second := image.NewPaletted(image.Rect(0, 0, 8, 8), pal)
	for i := range second.Pix {
		second.Pix[i] = 1
	}
	gif.EncodeAll(&g, &gif.GIF{Image: []*image.Paletted{first, second}, Delay: []int{10, 10}})
	webp, err := os.ReadFile("testdata/blue-purple-pink.lossy.webp")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, format, mime string
		data               []byte
		w, h               int
	}{
		{"plot.png", "png", "image/png", p.Bytes(), 40, 30},
		{"photo.jpg", "jpeg", "image/jpeg", jpg, 2048, 682},
		{"anim.gif", "gif", "image/png", g.Bytes(), 8, 8},
		{"pic.webp", "webp", "image/jpeg", webp, 0, 0},
	} {
		im, err := Read(c.name, c.data)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if im.Format != c.format || !strings.HasPrefix(im.DataURL, "data:"+c.mime+";base64,") {
			t.Fatalf("%s: %+v %.30s", c.name, im, im.DataURL)
		}
		img, raw := decoded(t, im)
		if c.w > 0 && (img.Bounds().Dx() != c.w || img.Bounds().Dy() != c.h || im.SentWidth != c.w) {
			t.Fatalf("%s: sent %v (%+v)", c.name, img.Bounds(), im)
		}
		if bytes.Contains(raw, []byte("secret-serial")) || bytes.Contains(raw, []byte("Exif")) {
			t.Fatalf("%s: the EXIF went through", c.name)
		}
		if c.format == "gif" {
			if r, _, _, _ := img.At(3, 3).RGBA(); r != 0 {
				t.Fatal("not the GIF's first frame")
			}
		}
	}
}

// Hostile images are refused in words, the bomb before any decoding (its
// 30,000 × 30,000 RGBA would take 3.6 GB).
func TestHostileImages(t *testing.T) {
	var p bytes.Buffer
	png.Encode(&p, picture(64, 64))
	broken := p.Bytes()[:len(p.Bytes())/2]
	for _, c := range []struct {
		name string
		data []byte
		is   error
		want string
	}{
		{"bomb.png", bomb(30000, 30000), ErrTooLarge, "30000 × 30000 pixels, at most 12000 on a side"},
		{"wide.png", bomb(11000, 11000), ErrTooLarge, "121 million pixels, at most 40 million"},
		{"broken.png", broken, ErrDamaged, "save it again"},
		{"zero.png", bomb(0, 10), ErrDamaged, "header"},
		{"notes.txt", []byte("hello, not an image"), ErrNotImage, "PNG, JPEG, WebP or GIF"},
		{"doc.bmp", []byte("BM\x00\x00\x00\x00"), ErrNotImage, "convert"},
		{"huge.png", append(bomb(10, 10), make([]byte, MaxFileBytes)...), ErrTooLarge, "at most 32 MiB"},
	} {
		_, err := Read(c.name, c.data)
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// Load: the size from the file's own, before it is read.
	dir := t.TempDir()
	big := filepath.Join(dir, "big.png")
	f, _ := os.Create(big)
	f.Truncate(MaxFileBytes + 1)
	f.Close()
	if _, err := Load(big); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Load of a 32 MiB+ file: %v", err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "not a file") {
		t.Fatalf("Load of a folder: %v", err)
	}
}
