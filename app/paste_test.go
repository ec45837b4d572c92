package app

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/core"
	"rehome/backend/vision"
)

// clipWindow is a window whose clipboard holds image (nil: text only).
type clipWindow struct {
	fakeWindow
	image []byte
	limit int
}

func (w *clipWindow) ClipboardImage(limit int) ([]byte, error) {
	w.limit = limit
	return w.image, nil
}

// The window's paste, through the one door: the clipboard's image is kept
// as an upload the UI reads and Ask takes, like a dropped file; text only
// answers no path; a PNG bomb on the clipboard is refused in words,
// nothing kept; a browser has no clipboard to read.
func TestPasteImage(t *testing.T) {
	a := newTestApp(t)
	calls := NewCalls(a.App)
	if _, err := calls.Call("PasteImage", nil); err == nil || !strings.Contains(err.Error(), "only in the rehome window") {
		t.Fatalf("PasteImage in a browser: %v", err)
	}
	w := &clipWindow{}
	a.SetEmitter(w)
	got, err := a.PasteImage()
	if err != nil || got.Path != "" {
		t.Fatalf("text on the clipboard: %+v %v, want no path and no error", got, err)
	}
	var b bytes.Buffer
	png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 64, 48)))
	w.image = b.Bytes()
	res, err := calls.Call("PasteImage", nil)
	up, _ := res.(core.Upload)
	if err != nil || !strings.HasPrefix(up.Name, "pasted-") || !strings.HasSuffix(up.Name, ".png") || w.limit != vision.MaxFileBytes {
		t.Fatalf("a screenshot: %+v %v (read up to %d)", up, err, w.limit)
	}
	if kept, _ := os.ReadFile(up.Path); !bytes.Equal(kept, b.Bytes()) {
		t.Fatal("the kept file is not the clipboard's image")
	}
	if p, err := a.readable(up.Path); err != nil || p != up.Path {
		t.Fatalf("the pasted image is not readable as a question's file: %v", err)
	}
	if _, err := a.PreviewFile(up.Path); err != nil && strings.Contains(err.Error(), "not a file you gave rehome") {
		t.Fatalf("the pasted image is refused: %v", err)
	}
	// A bomb: the PNG with its IHDR claiming 30,000 × 30,000 pixels (its
	// checksum made again, so only the bound refuses it).
	bomb := append([]byte{}, b.Bytes()...)
	copy(bomb[16:24], []byte{0, 0, 0x75, 0x30, 0, 0, 0x75, 0x30})
	binary.BigEndian.PutUint32(bomb[29:33], crc32.ChecksumIEEE(bomb[12:29]))
	w.image = bomb
	if res, err := calls.Call("PasteImage", nil); !errors.Is(err, vision.ErrTooLarge) || !strings.Contains(err.Error(), "30000 × 30000 pixels, at most 12000 on a side") || res.(core.Upload).Path != "" {
		t.Fatalf("a bomb on the clipboard: %+v %v", res, err)
	}
	if ents, _ := os.ReadDir(filepath.Join(a.cfg.DataDir, UploadsDir)); len(ents) != 1 {
		t.Errorf("the uploads hold %d entries, want the one screenshot's", len(ents))
	}
}
