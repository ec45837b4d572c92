package browse

import (
	"context"
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

// Catalog lists the books kiwix-serve serves: at most maxCatalogBooks; a
// catalog of more is refused in words.
func (k *Kiwix) Catalog(ctx context.Context) ([]BookInfo, error) {
	var out []BookInfo
	tooMany := false
	err := getXML(ctx, k, "/catalog/v2/entries?count=-1", "catalog", []string{"entry"}, func(e opdsEntry) bool {
		if len(out) == maxCatalogBooks {
			tooMany = true
			return false
		}
		out = append(out, BookInfo{Name: e.Name, Title: e.Title, Description: e.Summary, Language: e.Language, Articles: e.Articles,
			FullText: strings.Contains(e.Tags, "_ftindex:yes"), URLName: strings.Trim(string(e.HTML), "/")})
		return true
	})
	switch {
	case err != nil:
		return nil, err
	case tooMany:
		return nil, fmt.Errorf("%w: its catalog lists more than %d books, more than rehome reads", ErrNoKiwix, maxCatalogBooks)
	}
	return out, nil
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

var tagRE = regexp.MustCompile(`<[^>]*>`)

// Search runs query through book's full-text index, at most top hits;
// their titles, snippets and sources (a carried ZIM's words) on one line
// without control or bidirectional-override characters, as the web's.
func (k *Kiwix) Search(ctx context.Context, book, query string, top int) ([]Hit, error) {
	q := url.Values{"content": {book}, "pattern": {query}, "format": {"xml"}, "pageLength": {strconv.Itoa(top)}}
	var out []Hit
	prefix := "/" + book + "/"
	err := getXML(ctx, k, "/search?"+q.Encode(), "search answer", []string{"channel", "item"}, func(it searchItem) bool {
		path := strings.TrimPrefix(it.Link, prefix)
		if path == it.Link {
			return true // another book's
		}
		if p, err := url.PathUnescape(path); err == nil {
			path = p
		}
		snip := html.UnescapeString(tagRE.ReplaceAllString(html.UnescapeString(it.Desc.Inner), ""))
		words, _ := strconv.Atoi(strings.ReplaceAll(it.Words, ",", ""))
		out = append(out, Hit{Title: clean(it.Title, 300), URL: ZIMURL(book, path), Snippet: clean(snip, 600),
			Book: book, Path: path, Words: words, Source: clean(it.Book, 300)})
		return len(out) != top
	})
	if err != nil {
		return nil, err
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
