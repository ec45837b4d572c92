package zimtest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
)

// png48 is a 48×48 PNG of one colour.
func png48() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 48, 48))
	for y := 0; y < 48; y++ {
		for x := 0; x < 48; x++ {
			img.Set(x, y, color.RGBA{0x33, 0x66, 0x99, 0xff})
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}
