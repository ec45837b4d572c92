package core

import (
	"context"
	"fmt"
	"strings"

	"rehome/backend/browse"
)

// Reading is a carried library's article as the window's reader shows
// it: its title, its address, and its body as safe HTML (browse.ReaderHTML:
// no scripts, styles, images or frames; links to the library's other
// pages as zim:// addresses, web links absolute).
type Reading struct {
	Title   string `json:"title"`
	Source  string `json:"source"`
	Library string `json:"library"`
	HTML    string `json:"html"`
}

// Read opens a library's article (zim://LIBRARY/PATH) for the reader,
// straight from kiwix-serve: no sandbox run (the HTML is not handed to a
// parser of the kind the sandbox guards, only to Go's html package and
// bluemonday's allow-list, bounded to kiwix-serve's 8 MB answer). Web
// addresses are refused: the window opens them in the user's browser.
func (b *Browse) Read(ctx context.Context, address string) (Reading, error) {
	if err := b.c.Ready(); err != nil {
		return Reading{}, err
	}
	book, path, ok := browse.ParseZIMURL(address)
	if !ok {
		return Reading{}, fmt.Errorf("%w: %q is not a library's article: rehome's reader opens zim://LIBRARY/PATH addresses (a web page opens in your browser)", browse.ErrRefused, address)
	}
	op, err := b.svc.Open(ctx, address, browse.OpenOptions{AirGapped: true})
	if err != nil {
		return Reading{}, err
	}
	r := Reading{Title: op.Title, Source: op.Source, Library: op.Library}
	switch {
	case isHTML(op.ContentType):
		r.HTML = browse.ReaderHTML(book, path, op.Body)
	case strings.HasPrefix(op.ContentType, "text/"):
		r.HTML = browse.ReaderText(op.Body)
	default:
		return r, fmt.Errorf("%w: %s is %s, which the reader does not show (it shows the library's HTML and text pages)", browse.ErrPage, op.Source, op.ContentType)
	}
	if r.Title == "" {
		r.Title = path
	}
	return r, nil
}
