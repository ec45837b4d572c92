package progressio

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestCounterCountsWhatPassesEitherWay(t *testing.T) {
	var out bytes.Buffer
	w := &Counter{W: &out}
	r := &Counter{R: strings.NewReader("twelve bytes")}
	if _, err := io.Copy(w, r); err != nil {
		t.Fatal(err)
	}
	if r.N != 12 || w.N != 12 || out.String() != "twelve bytes" {
		t.Fatalf("read %d, wrote %d (%q); want 12 each way", r.N, w.N, out.String())
	}
}
