package core

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/vision"
)

// An upload is kept under its content's hash, once; what is too large,
// cut short or not a file name is refused in words, and a data folder
// that cannot take it says so as the machine's fault (ErrUploadStore).
func TestKeepUpload(t *testing.T) {
	dir := t.TempDir()
	c := New(dir, Options{})
	up, err := c.KeepUpload("shot.png", strings.NewReader("PNG bytes"), 9, 100)
	if err != nil {
		t.Fatal(err)
	}
	if up.Again || up.Size != 9 || filepath.Base(up.Path) != "shot.png" || !strings.HasPrefix(up.Path, filepath.Join(dir, UploadsDir)+string(filepath.Separator)) {
		t.Fatalf("kept as %+v", up)
	}
	if b, err := os.ReadFile(up.Path); err != nil || string(b) != "PNG bytes" {
		t.Fatalf("the kept file holds %q (%v)", b, err)
	}
	if st, _ := os.Stat(up.Path); st.Mode().Perm() != 0o644 {
		t.Fatalf("the kept file's mode is %v, want 0644 (the sandbox's user reads it)", st.Mode().Perm())
	}
	again, err := c.KeepUpload("shot.png", strings.NewReader("PNG bytes"), -1, 100)
	if err != nil || !again.Again || again.Path != up.Path {
		t.Fatalf("the same file again: %+v, %v (want the first copy)", again, err)
	}
	for _, bad := range []struct {
		name, body string
		size       int64
		want       string
	}{
		{"big.csv", strings.Repeat("x", 101), -1, "larger than"},
		{"cut.csv", "half", 8, "cut short"},
		{"../db", "x", 1, "not a file name"},
		{"", "x", 1, "not a file name"},
	} {
		_, err := c.KeepUpload(bad.name, strings.NewReader(bad.body), bad.size, 100)
		if err == nil || !strings.Contains(err.Error(), bad.want) || errors.Is(err, ErrUploadStore) {
			t.Errorf("KeepUpload(%q) = %v, want an error about %q", bad.name, err, bad.want)
		}
	}
	// A data folder whose uploads folder cannot be made.
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, UploadsDir), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(full, Options{}).KeepUpload("a.csv", strings.NewReader("x"), 1, 100); !errors.Is(err, ErrUploadStore) {
		t.Fatalf("uploads folder not makeable: %v, want ErrUploadStore", err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, UploadsDir))
	for _, e := range ents {
		if !e.IsDir() {
			t.Errorf("a refused upload left %s behind", e.Name())
		}
	}
}

// A pasted image (the window's clipboard: bytes, no file) is kept as an
// upload named after its hash, once; a bomb, a damaged header, text and
// an image over the size bound are refused in words, nothing kept.
func TestKeepPastedImage(t *testing.T) {
	dir := t.TempDir()
	c := New(dir, Options{})
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 40, 30))); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b.Bytes())
	up, err := c.KeepPastedImage(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if want := "pasted-" + hex.EncodeToString(sum[:4]) + ".png"; up.Name != want || filepath.Base(up.Path) != want || up.Size != int64(b.Len()) {
		t.Fatalf("kept as %+v, want %s", up, want)
	}
	if got, _ := os.ReadFile(up.Path); !bytes.Equal(got, b.Bytes()) {
		t.Fatal("the kept file is not the pasted image's bytes")
	}
	if again, err := c.KeepPastedImage(b.Bytes()); err != nil || !again.Again || again.Path != up.Path {
		t.Fatalf("the same image pasted again: %+v %v (want the first copy)", again, err)
	}
	hostile := []struct {
		what string
		data []byte
		err  error
		want string
	}{
		{"a PNG bomb", pngClaiming(30000, 30000), vision.ErrTooLarge, "pasted from the clipboard: the image is too large: 30000 × 30000 pixels, at most 12000 on a side"},
		{"too many pixels", pngClaiming(11000, 11000), vision.ErrTooLarge, "121 million pixels, at most 40 million"},
		{"a cut header", b.Bytes()[:20], vision.ErrDamaged, "header does not read"},
		{"text", []byte("just words"), vision.ErrNotImage, "give a PNG, JPEG, WebP or GIF"},
		{"over 32 MiB", append(append([]byte{}, b.Bytes()...), make([]byte, MaxPastedImage)...), vision.ErrTooLarge, "at most 32 MiB"},
	}
	for _, h := range hostile {
		_, err := c.KeepPastedImage(h.data)
		if !errors.Is(err, h.err) || !strings.Contains(err.Error(), h.want) {
			t.Errorf("%s: %v, want %v saying %q", h.what, err, h.err, h.want)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, UploadsDir)); len(ents) != 1 {
		t.Errorf("the uploads hold %d entries, want the one image's folder", len(ents))
	}
}

// pngClaiming is a PNG of a few bytes whose header claims w × h pixels of
// RGBA: what a decoder would allocate w*h*4 bytes for.
func pngClaiming(w, h uint32) []byte {
	chunk := func(kind string, data []byte) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		out = append(append(out, kind...), data...)
		return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(kind), data...)))
	}
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, w), h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0)
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, chunk("IHDR", ihdr)...)
	out = append(out, chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(out, chunk("IEND", nil)...)
}
