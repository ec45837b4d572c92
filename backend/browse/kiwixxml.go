package browse

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
)

// maxCatalogBooks bounds the books rehome reads of kiwix-serve's catalog
// (a probe serves one file: one book). A catalog of more is refused.
const maxCatalogBooks = 1000

// opdsEntry is one book of kiwix-serve's OPDS catalog.
type opdsEntry struct {
	Title    string   `xml:"title"`
	Summary  string   `xml:"summary"`
	Language string   `xml:"language"`
	Name     string   `xml:"name"`
	Tags     string   `xml:"tags"`
	Articles int      `xml:"articleCount"`
	HTML     htmlLink `xml:"link"`
}

// htmlLink is the href of an entry's last text/html link; its other links
// are read and dropped, so that an entry of a million links costs no more
// memory than one of one.
type htmlLink string

// UnmarshalXML keeps the link's href when its type is text/html.
func (l *htmlLink) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	var typ, href string
	for _, a := range start.Attr {
		switch a.Name.Local {
		case "type":
			typ = a.Value
		case "href":
			href = a.Value
		}
	}
	if typ == "text/html" {
		*l = htmlLink(href)
	}
	return d.Skip()
}

// searchItem is one hit of kiwix-serve's RSS search answer.
type searchItem struct {
	Title string `xml:"title"`
	Link  string `xml:"link"`
	Desc  struct {
		Inner string `xml:",innerxml"`
	} `xml:"description"`
	Book  string `xml:"book>title"`
	Words string `xml:"wordCount"`
}

// getXML reads the XML kiwix-serve answers at path and hands keep each
// element at elems below the root (the catalog's "entry", the search's
// "channel", "item": where xml.Unmarshal's "channel>item" finds them),
// decoded one at a time, until keep returns false: a million tiny
// elements in the answer's 8 MiB cost no more memory than what keep
// keeps. what names the answer when it does not read.
func getXML[T any](ctx context.Context, k *Kiwix, path, what string, elems []string, keep func(T) bool) error {
	body, err := k.get(ctx, path)
	if err != nil {
		return err
	}
	d := xml.NewDecoder(bytes.NewReader(body))
	depth := -1 // before the root; then how many of elems it is inside
	for {
		tok, err := d.Token()
		if err == nil {
			switch tok := tok.(type) {
			case xml.StartElement:
				switch {
				case depth < 0:
					depth = 0
				case tok.Name.Local != elems[depth]:
					err = d.Skip()
				case depth < len(elems)-1:
					depth++
				default:
					var v T
					if err = d.DecodeElement(&v, &tok); err == nil && !keep(v) {
						return nil
					}
				}
			case xml.EndElement:
				if depth == 0 {
					return nil // the root's end: what follows is not read
				}
				depth--
			}
		}
		if err != nil {
			return fmt.Errorf("%w: its %s does not read: %v", ErrNoKiwix, what, err)
		}
	}
}
