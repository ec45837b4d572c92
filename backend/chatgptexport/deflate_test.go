package chatgptexport

import (
	"compress/flate"
	"io"
)

func newDeflate(w io.Writer) (*flate.Writer, error) { return flate.NewWriter(w, flate.BestCompression) }
