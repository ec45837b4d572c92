package vision

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"slices"
	"strings"

	"rehome/backend/bytesize"
)

// Bounds on an assistant's picture (its avatar in the list and in Ask).
const (
	// MaxPictureFile is the largest picture file taken (it travels to
	// rehome in one call of the browser face, whose body is 8 MiB).
	MaxPictureFile = 5 << 20
	// PictureSide is the longest side of the picture as kept: it is shown
	// at 24–64 px, so 256 px is sharp on a 4× screen.
	PictureSide = 256
	// MaxPictureURL is the most bytes of a kept picture's data: URL.
	MaxPictureURL = 256 << 10
)

// pictureFormats are the formats a picture may be: what browsers show.
var pictureFormats = []string{"png", "jpeg", "webp"}

// Picture readies a picture for an assistant from a file's bytes: a PNG,
// JPEG or WebP within MaxPictureFile, MaxSide and MaxPixels (the header
// read before any pixel, so a bomb is refused in words), decoded, scaled
// to PictureSide and encoded again (no EXIF or other metadata kept). It
// returns a data: URL — PNG for a PNG (its transparency kept), else JPEG.
func Picture(name string, data []byte) (string, error) {
	if len(data) > MaxPictureFile {
		return "", fmt.Errorf("%s: %w: %s, a picture is at most %s (save it smaller)", name, ErrTooLarge, bytesize.Format(int64(len(data))), bytesize.Format(MaxPictureFile))
	}
	format := sniff(data)
	codec, ok := formats[format]
	if !ok || !slices.Contains(pictureFormats, format) {
		return "", fmt.Errorf("%s: %w: a picture is a PNG, JPEG or WebP (convert it first)", name, ErrNotImage)
	}
	cfg, err := codec.config(bytes.NewReader(data))
	if err != nil {
		return "", fmt.Errorf("%s: %w: its %s header does not read (%v): save it again from the program that made it", name, ErrDamaged, format, err)
	}
	if err := checkSize(name, cfg.Width, cfg.Height); err != nil {
		return "", err
	}
	img, err := decode(codec.decode, data)
	if err != nil {
		return "", fmt.Errorf("%s: %w: %v: save it again from the program that made it", name, ErrDamaged, err)
	}
	img = scale(img, PictureSide)
	var buf bytes.Buffer
	mime := "image/png"
	if format == "png" {
		err = png.Encode(&buf, img)
	} else {
		mime = "image/jpeg"
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 88})
	}
	if err != nil {
		return "", fmt.Errorf("%s: encode it again: %w", name, err)
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// CheckPicture vets a kept picture's data: URL (a record from a bundle or
// a page may hold anything): a PNG or JPEG data: URL within MaxPictureURL
// whose header says at most PictureSide on a side.
func CheckPicture(url string) error {
	if url == "" {
		return nil
	}
	if len(url) > MaxPictureURL {
		return fmt.Errorf("the picture is %s, at most %s: choose it again in the editor", bytesize.Format(int64(len(url))), bytesize.Format(MaxPictureURL))
	}
	var format string
	var b64 string
	switch {
	case strings.HasPrefix(url, "data:image/png;base64,"):
		format, b64 = "png", strings.TrimPrefix(url, "data:image/png;base64,")
	case strings.HasPrefix(url, "data:image/jpeg;base64,"):
		format, b64 = "jpeg", strings.TrimPrefix(url, "data:image/jpeg;base64,")
	default:
		return fmt.Errorf("the picture is not a PNG or JPEG data: URL: choose it again in the editor")
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return fmt.Errorf("the picture's data does not read (%v): choose it again in the editor", err)
	}
	var cfg image.Config
	if format == "png" {
		cfg, err = png.DecodeConfig(bytes.NewReader(raw))
	} else {
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(raw))
	}
	switch {
	case err != nil:
		return fmt.Errorf("the picture's header does not read (%v): choose it again in the editor", err)
	case cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > PictureSide || cfg.Height > PictureSide:
		return fmt.Errorf("the picture is %d × %d pixels, at most %d on a side: choose it again in the editor", cfg.Width, cfg.Height, PictureSide)
	}
	return nil
}
