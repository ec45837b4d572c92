package vision

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

// A picture is scaled to PictureSide and loses its EXIF; a bomb, a
// 30000 px side, a GIF and a file over MaxPictureFile are refused in
// words; CheckPicture refuses what Picture would never make.
func TestPicture(t *testing.T) {
	var j bytes.Buffer
	jpeg.Encode(&j, picture(800, 400), nil)
	url, err := Picture("me.jpg", withEXIF(j.Bytes(), "GPS-SECRET-PLACE"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(url, "data:image/jpeg;base64,") {
		t.Fatalf("not a JPEG data: URL: %.40s", url)
	}
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, "data:image/jpeg;base64,"))
	if bytes.Contains(raw, []byte("GPS-SECRET-PLACE")) {
		t.Fatal("the EXIF came along")
	}
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil || img.Bounds().Dx() != PictureSide || img.Bounds().Dy() != PictureSide/2 {
		t.Fatalf("scaled to %v (%v), want %d × %d", img.Bounds(), err, PictureSide, PictureSide/2)
	}
	if err := CheckPicture(url); err != nil {
		t.Fatalf("CheckPicture of Picture's own: %v", err)
	}
	var p bytes.Buffer
	png.Encode(&p, picture(40, 40))
	if u, err := Picture("small.png", p.Bytes()); err != nil || !strings.HasPrefix(u, "data:image/png;base64,") {
		t.Fatalf("a PNG stays a PNG: %.30s %v", u, err)
	}
	for _, c := range []struct {
		name string
		data []byte
		is   error
		want string
	}{
		{"bomb.png", bomb(30000, 30000), ErrTooLarge, "30000 × 30000 pixels, at most 12000 on a side"},
		{"side.png", bomb(30000, 10), ErrTooLarge, "30000 × 10 pixels, at most 12000 on a side"},
		{"deflate.png", bomb(11000, 11000), ErrTooLarge, "121 million pixels, at most 40 million"},
		{"anim.gif", []byte("GIF89a\x01\x00\x01\x00"), ErrNotImage, "PNG, JPEG or WebP"},
		{"big.png", append(bomb(10, 10), make([]byte, MaxPictureFile)...), ErrTooLarge, "at most 5 MiB"},
	} {
		_, err := Picture(c.name, c.data)
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	var big bytes.Buffer
	png.Encode(&big, picture(300, 10))
	for url, want := range map[string]string{
		"data:image/svg+xml;base64,PHN2Zz4=":                                      "not a PNG or JPEG",
		"data:image/png;base64," + base64.StdEncoding.EncodeToString(big.Bytes()): "300 × 10 pixels, at most 256",
		"data:image/png;base64,!!!":                                               "does not read",
		"data:image/png;base64," + strings.Repeat("A", MaxPictureURL):             "at most 256 KiB",
	} {
		if err := CheckPicture(url); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckPicture(%.40s): %v, want %q", url, err, want)
		}
	}
}
