package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: icons SRC.png OUTDIR SIZE...")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3:]); err != nil {
		fmt.Fprintln(os.Stderr, "icons:", err)
		os.Exit(1)
	}
}

func run(src, out string, sizes []string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	for _, s := range sizes {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 4096 {
			return fmt.Errorf("bad size %q", s)
		}
		path := filepath.Join(out, fmt.Sprintf("%dx%d", n, n), "apps", "rehome.png")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		w, err := os.Create(path)
		if err != nil {
			return err
		}
		enc := png.Encoder{CompressionLevel: png.BestCompression}
		if err := enc.Encode(w, scale(img, n)); err != nil {
			w.Close()
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
	}
	return nil
}

// scale resizes img to n×n by box filtering: each output pixel is the
// area-weighted mean of the source pixels it covers.
func scale(img image.Image, n int) *image.NRGBA {
	b := img.Bounds()
	sw, sh := float64(b.Dx()), float64(b.Dy())
	dst := image.NewNRGBA(image.Rect(0, 0, n, n))
	for y := 0; y < n; y++ {
		y0, y1 := float64(y)*sh/float64(n), float64(y+1)*sh/float64(n)
		for x := 0; x < n; x++ {
			x0, x1 := float64(x)*sw/float64(n), float64(x+1)*sw/float64(n)
			var r, g, bl, a, area float64
			for sy := int(y0); float64(sy) < y1; sy++ {
				wy := min(y1, float64(sy+1)) - max(y0, float64(sy))
				for sx := int(x0); float64(sx) < x1; sx++ {
					wx := min(x1, float64(sx+1)) - max(x0, float64(sx))
					w := wx * wy
					// RGBA() is premultiplied, 16 bits a channel.
					cr, cg, cb, ca := img.At(b.Min.X+sx, b.Min.Y+sy).RGBA()
					r += w * float64(cr)
					g += w * float64(cg)
					bl += w * float64(cb)
					a += w * float64(ca)
					area += w
				}
			}
			if a == 0 {
				continue
			}
			// Back from premultiplied to straight alpha, 8 bits.
			dst.SetNRGBA(x, y, color.NRGBA{
				R: uint8(min(255, r/a*255+0.5)),
				G: uint8(min(255, g/a*255+0.5)),
				B: uint8(min(255, bl/a*255+0.5)),
				A: uint8(min(255, a/area/257+0.5)),
			})
		}
	}
	return dst
}
