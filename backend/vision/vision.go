package vision

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"

	"rehome/backend/bytesize"
)

// Bounds on an image given to a question.
const (
	// MaxFileBytes is the largest image file read.
	MaxFileBytes = 32 << 20
	// MaxSide is the most pixels on either side.
	MaxSide = 12000
	// MaxPixels is the most pixels in all (decoding takes 4 bytes each).
	MaxPixels = 40_000_000
	// MaxSendSide is the longest side sent to the model: models scale
	// images down to well under it (a projector's tiles of 336-1024 px).
	MaxSendSide = 2048
	// MaxImages is the most images one question takes.
	MaxImages = 8
)

// Image is an image readied for a model.
type Image struct {
	Name string `json:"name"`
	// Format is what the file was: png, jpeg, webp or gif.
	Format string `json:"format"`
	// Width and Height are the file's; Sent* what the model gets.
	Width      int `json:"width"`
	Height     int `json:"height"`
	SentWidth  int `json:"sent_width"`
	SentHeight int `json:"sent_height"`
	// DataURL is the re-encoded image (no metadata), as a data: URL.
	DataURL string `json:"-"`
}

// formats decode the header and the pixels of each format read.
var formats = map[string]struct {
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}{
	"png":  {png.DecodeConfig, png.Decode},
	"jpeg": {jpeg.DecodeConfig, jpeg.Decode},
	"gif":  {gif.DecodeConfig, gif.Decode}, // the first frame
	"webp": {webp.DecodeConfig, webp.Decode},
}

// sniff names the format from the file's first bytes.
func sniff(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return "jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "gif"
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return "webp"
	}
	return ""
}

// Load readies the image file at path (see the package comment).
func Load(path string) (Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return Image{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Image{}, err
	}
	if !st.Mode().IsRegular() {
		return Image{}, fmt.Errorf("%s is not a file", filepath.Base(path))
	}
	if st.Size() > MaxFileBytes {
		return Image{}, fmt.Errorf("%s: %w: %s, at most %s (save it smaller, or as JPEG)", filepath.Base(path), ErrTooLarge, bytesize.Format(st.Size()), bytesize.Format(MaxFileBytes))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return Image{}, err
	}
	return Read(filepath.Base(path), data)
}

// Check vets an image's bytes within the bounds without decoding a pixel:
// its size, its format (from its first bytes), and the width and height
// its header claims (a bomb is refused here). It returns the format: png,
// jpeg, webp or gif.
func Check(name string, data []byte) (string, error) {
	if len(data) > MaxFileBytes {
		return "", fmt.Errorf("%s: %w: %s, at most %s", name, ErrTooLarge, bytesize.Format(int64(len(data))), bytesize.Format(MaxFileBytes))
	}
	format := sniff(data)
	codec, ok := formats[format]
	if !ok {
		return "", fmt.Errorf("%s: %w: give a PNG, JPEG, WebP or GIF (convert other formats first)", name, ErrNotImage)
	}
	cfg, err := codec.config(bytes.NewReader(data))
	if err != nil {
		return "", fmt.Errorf("%s: %w: its %s header does not read (%v): save it again from the program that made it", name, ErrDamaged, format, err)
	}
	return format, checkSize(name, cfg.Width, cfg.Height)
}

// Read readies an image from its bytes (a paste, an upload); name is shown.
func Read(name string, data []byte) (Image, error) {
	// The header alone first: a bomb is refused before a pixel is decoded.
	format, err := Check(name, data)
	if err != nil {
		return Image{}, err
	}
	img, err := decode(formats[format].decode, data)
	if err != nil {
		return Image{}, fmt.Errorf("%s: %w: %v: save it again from the program that made it", name, ErrDamaged, err)
	}
	b := img.Bounds()
	out := Image{Name: name, Format: format, Width: b.Dx(), Height: b.Dy()}
	img = scale(img, MaxSendSide)
	out.SentWidth, out.SentHeight = img.Bounds().Dx(), img.Bounds().Dy()
	var buf bytes.Buffer
	mime := "image/png"
	if format == "jpeg" || format == "webp" {
		mime = "image/jpeg" // a photo: JPEG keeps it small
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90})
	} else {
		err = png.Encode(&buf, img)
	}
	if err != nil {
		return Image{}, fmt.Errorf("%s: encode it again: %w", name, err)
	}
	out.DataURL = "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
	return out, nil
}

func checkSize(name string, w, h int) error {
	switch {
	case w <= 0 || h <= 0:
		return fmt.Errorf("%s: %w: its header says %d × %d pixels", name, ErrDamaged, w, h)
	case w > MaxSide || h > MaxSide:
		return fmt.Errorf("%s: %w: %d × %d pixels, at most %d on a side: scale it down first", name, ErrTooLarge, w, h, MaxSide)
	case int64(w)*int64(h) > MaxPixels:
		return fmt.Errorf("%s: %w: %d × %d is %.0f million pixels, at most %d million: scale it down first", name, ErrTooLarge, w, h, float64(w)*float64(h)/1e6, MaxPixels/1_000_000)
	}
	return nil
}

// decode decodes, turning a decoder's panic on hostile bytes into an error.
func decode(fn func(io.Reader) (image.Image, error), data []byte) (img image.Image, err error) {
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, errors.New("the decoder failed on it")
		}
	}()
	return fn(bytes.NewReader(data))
}

// scale returns img with its longer side at most max pixels.
func scale(img image.Image, max int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= max && h <= max {
		if _, ok := img.(*image.Paletted); !ok {
			return img
		}
	}
	if w > max || h > max {
		if w >= h {
			w, h = max, h*max/w
		} else {
			w, h = w*max/h, max
		}
	}
	if w < 1 {
		w = 1
	}
	if h < 1 {
		h = 1
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}
