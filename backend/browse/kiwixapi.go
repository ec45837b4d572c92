package browse

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// kiwix-serve 3.3's HTTP API, as Debian 12's kiwix-tools serves it:
//   /catalog/v2/entries                     the books (OPDS Atom)
//   /search?content=BOOK&pattern=Q&format=xml&pageLength=N
//                                           full-text search (RSS)
//   /raw/BOOK/content/PATH                  an entry's bytes, as stored

// maxKiwixAnswer bounds what rehome reads of one kiwix-serve answer.
const maxKiwixAnswer = 8 << 20

// BookInfo is what kiwix-serve's catalog says of one book.
type BookInfo struct {
	// URLName is the name its URLs use (the file's, without .zim).
	URLName     string
	Name        string // the ZIM's own name (wikipedia_en_all_maxi)
	Title       string
	Description string
	Language    string
	Articles    int
	FullText    bool // the ZIM carries a full-text index
}

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

// Catalog lists the books kiwix-serve serves: at most maxCatalogBooks; a
// catalog of more is refused in words.
func (k *Kiwix) Catalog(ctx context.Context) ([]BookInfo, error) {
	body, err := k.get(ctx, "/catalog/v2/entries?count=-1")
	if err != nil {
		return nil, err
	}
	entries, err := catalogEntries(body)
	if err != nil {
		return nil, err
	}
	out := make([]BookInfo, 0, len(entries))
	for _, e := range entries {
		out = append(out, BookInfo{Name: e.Name, Title: e.Title, Description: e.Summary, Language: e.Language, Articles: e.Articles,
			FullText: strings.Contains(e.Tags, "_ftindex:yes"), URLName: strings.Trim(string(e.HTML), "/")})
	}
	return out, nil
}

// catalogEntries reads the entries of an OPDS feed (the root's <entry>
// children, as xml.Unmarshal would) one at a time, so that a feed of more
// than maxCatalogBooks — tiny ones, a million in the answer's 8 MiB — is
// refused having decoded no more than that many.
func catalogEntries(body []byte) ([]opdsEntry, error) {
	bad := func(err error) error { return fmt.Errorf("%w: its catalog does not read: %v", ErrNoKiwix, err) }
	d := xml.NewDecoder(bytes.NewReader(body))
	var out []opdsEntry
	inRoot := false
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, bad(err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			switch {
			case !inRoot:
				inRoot = true
			case tok.Name.Local != "entry":
				if err := d.Skip(); err != nil {
					return nil, bad(err)
				}
			case len(out) == maxCatalogBooks:
				return nil, fmt.Errorf("%w: its catalog lists more than %d books, more than rehome reads", ErrNoKiwix, maxCatalogBooks)
			default:
				var e opdsEntry
				if err := d.DecodeElement(&e, &tok); err != nil {
					return nil, bad(err)
				}
				out = append(out, e)
			}
		case xml.EndElement:
			return out, nil // the root's end: what follows is not read
		}
	}
}

// Hit is one search result: from a library (Book and Path set, URL its
// zim:// address) or from the web.
type Hit struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
	// Book and Path place a library's article.
	Book  string `json:"book,omitempty"`
	Path  string `json:"path,omitempty"`
	Words int    `json:"words,omitempty"`
	// Source names where it came from: the library's title, or the engine.
	Source string `json:"source"`
}

type searchRSS struct {
	Total int `xml:"channel>totalResults"`
	Items []struct {
		Title string `xml:"title"`
		Link  string `xml:"link"`
		Desc  struct {
			Inner string `xml:",innerxml"`
		} `xml:"description"`
		Book  string `xml:"book>title"`
		Words string `xml:"wordCount"`
	} `xml:"channel>item"`
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// Search runs query through book's full-text index, at most top hits;
// their titles, snippets and sources (a carried ZIM's words) on one line
// without control or bidirectional-override characters, as the web's.
func (k *Kiwix) Search(ctx context.Context, book, query string, top int) ([]Hit, error) {
	q := url.Values{"content": {book}, "pattern": {query}, "format": {"xml"}, "pageLength": {strconv.Itoa(top)}}
	var r searchRSS
	if err := k.getXML(ctx, "/search?"+q.Encode(), "search answer", &r); err != nil {
		return nil, err
	}
	var out []Hit
	prefix := "/" + book + "/"
	for _, it := range r.Items {
		path := strings.TrimPrefix(it.Link, prefix)
		if path == it.Link {
			continue // another book's
		}
		if p, err := url.PathUnescape(path); err == nil {
			path = p
		}
		snip := html.UnescapeString(tagRE.ReplaceAllString(html.UnescapeString(it.Desc.Inner), ""))
		words, _ := strconv.Atoi(strings.ReplaceAll(it.Words, ",", ""))
		out = append(out, Hit{Title: clean(it.Title, 300), URL: ZIMURL(book, path), Snippet: clean(snip, 600),
			Book: book, Path: path, Words: words, Source: clean(it.Book, 300)})
		if len(out) == top {
			break
		}
	}
	return out, nil
}

// Raw is an entry's stored bytes and their type.
func (k *Kiwix) Raw(ctx context.Context, book, path string) ([]byte, string, error) {
	u := "/raw/" + url.PathEscape(book) + "/content/" + escapePath(path)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.URL+u, nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrNoKiwix, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, "", fmt.Errorf("%w: %s has no article %s (search the library for its title)", ErrNotFound, book, path)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("%w: kiwix-serve answered %s for %s", ErrNoKiwix, resp.Status, ZIMURL(book, path))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxKiwixAnswer))
	return b, resp.Header.Get("Content-Type"), err
}

// getXML decodes the XML kiwix-serve answers at path into v; what names
// the answer when it does not read.
func (k *Kiwix) getXML(ctx context.Context, path, what string, v any) error {
	body, err := k.get(ctx, path)
	if err != nil {
		return err
	}
	if err := xml.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: its %s does not read: %v", ErrNoKiwix, what, err)
	}
	return nil
}

func (k *Kiwix) get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.URL+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoKiwix, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxKiwixAnswer))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		detail := tagRE.ReplaceAllString(string(b), " ")
		return nil, fmt.Errorf("%w: kiwix-serve answered %s: %s", ErrNoKiwix, resp.Status, strings.Join(strings.Fields(detail), " "))
	}
	return b, nil
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// ZIMURL is the zim://BOOK/PATH address of a library's article.
func ZIMURL(book, path string) string { return "zim://" + book + "/" + escapePath(path) }

// ParseZIMURL splits a zim://BOOK/PATH address; one with a ".." segment
// is refused (a name with dots in it, "...And_Justice_for_All", is not).
func ParseZIMURL(s string) (book, path string, ok bool) {
	rest, found := strings.CutPrefix(s, "zim://")
	if !found {
		return "", "", false
	}
	book, path, found = strings.Cut(rest, "/")
	if !found || book == "" || path == "" {
		return "", "", false
	}
	if p, err := url.PathUnescape(path); err == nil {
		path = p
	}
	if slices.Contains(strings.Split(path, "/"), "..") {
		return "", "", false // it climbs out of the library
	}
	return book, path, true
}
