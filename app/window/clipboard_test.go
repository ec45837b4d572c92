package window

import (
	"strings"
	"testing"
)

// What GTK's answer about the clipboard becomes: no image (text) is no
// error; an image is copied only within the read's bound; a type rehome
// does not read, an owner that gave nothing and an image over the bound
// are said in words; a late answer to a read that gave up is dropped.
func TestClipboardAnswers(t *testing.T) {
	id, ch := startRead(8)
	copied := 0
	give := func(ans clipAnswer) ([]byte, error) {
		answerRead(id, ans, func() []byte { copied++; return []byte("PNGBYTES")[:ans.n] })
		return (<-ch).image(8)
	}
	if b, err := give(clipAnswer{n: -1}); b != nil || err != nil {
		t.Fatalf("text on the clipboard: %q %v, want nothing and no error", b, err)
	}
	if b, err := give(clipAnswer{target: "image/png", n: 8}); err != nil || string(b) != "PNGBYTES" {
		t.Fatalf("a PNG: %q %v", b, err)
	}
	for _, c := range []struct {
		ans  clipAnswer
		want string
	}{
		{clipAnswer{target: "image/bmp", n: -2}, "holds an image as image/bmp, which rehome does not read"},
		{clipAnswer{target: "image/png", n: -1}, "did not hand it over (image/png): copy it again"},
		{clipAnswer{target: "image/png", n: 9}, "the pasted image is 9 bytes, at most 8 bytes"},
	} {
		if b, err := give(c.ans); b != nil || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %q %v, want %q", c.ans, b, err, c.want)
		}
	}
	if copied != 1 {
		t.Errorf("GTK's data was copied %d times, want once (the PNG within the bound)", copied)
	}
	endRead(id)
	answerRead(id, clipAnswer{target: "image/png", n: 4}, func() []byte { t.Fatal("a late answer was copied"); return nil })
}
