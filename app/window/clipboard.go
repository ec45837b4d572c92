package window

import (
	"fmt"
	"sync"

	"rehome/app"
	"rehome/backend/bytesize"
)

// The desktop's clipboard, read natively for a paste (app/paste.go):
// WebKitGTK hands the page no image pasted from it (WebKitGTK bug 320303).
// The read itself is GTK's, on its main loop (clipboard_gtk.go); it
// answers here, by the id of the read waiting for it.

var _ app.ClipboardReader = (*window)(nil)

// ClipboardImage reads the clipboard's image (app.ClipboardReader).
func (w *window) ClipboardImage(limit int) ([]byte, error) {
	data, err := clipboardImage(limit)
	if err != nil {
		w.log.Warn("clipboard not read", "err", err)
	}
	return data, err
}

// clipAnswer is what the clipboard gave one read: target is the type its
// data came as ("" when it offered no image), n its length (-1: its owner
// did not hand it over).
type clipAnswer struct {
	target string
	n      int
	data   []byte
}

// clipRead is one read waiting for GTK's answer: where the answer goes,
// and the most bytes it takes.
type clipRead struct {
	ch    chan clipAnswer
	limit int
}

// clipReads are the reads waiting for GTK's answer, by id; one that gave
// up waiting is gone, and a late answer to it is dropped.
var clipReads = struct {
	sync.Mutex
	next int
	wait map[int]clipRead
}{wait: map[int]clipRead{}}

// startRead registers a read of at most limit bytes.
func startRead(limit int) (int, chan clipAnswer) {
	clipReads.Lock()
	defer clipReads.Unlock()
	clipReads.next++
	id, ch := clipReads.next, make(chan clipAnswer, 1)
	clipReads.wait[id] = clipRead{ch: ch, limit: limit}
	return id, ch
}

func endRead(id int) {
	clipReads.Lock()
	delete(clipReads.wait, id)
	clipReads.Unlock()
}

// answerRead hands read id its answer; take copies the data (GTK's, valid
// only during the call) when the read takes it, within its limit.
func answerRead(id int, ans clipAnswer, take func() []byte) {
	clipReads.Lock()
	r, ok := clipReads.wait[id]
	clipReads.Unlock()
	if !ok {
		return
	}
	if ans.n > 0 && ans.n <= r.limit {
		ans.data = take()
	}
	select {
	case r.ch <- ans:
	default:
	}
}

// image turns the clipboard's answer into the image's bytes, or says in
// words why there are none: nil, nil when it offered no image.
func (ans clipAnswer) image(limit int) ([]byte, error) {
	switch {
	case ans.target == "":
		return nil, nil
	case ans.n == -2:
		return nil, fmt.Errorf("the clipboard holds an image as %s, which rehome does not read: copy it as PNG, or save it and drop the file", ans.target)
	case ans.n > limit:
		return nil, fmt.Errorf("the pasted image is %s, at most %s: save it smaller and drop the file", bytesize.Format(int64(ans.n)), bytesize.Format(int64(limit)))
	case ans.n <= 0 || ans.data == nil:
		return nil, fmt.Errorf("the program that copied the image did not hand it over (%s): copy it again", ans.target)
	}
	return ans.data, nil
}
