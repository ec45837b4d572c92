package browse

import (
	"bytes"
	"html"
	"net/url"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The window's reader shows a carried library's article as the library
// stores it, made safe here before it leaves the backend (the page
// sanitises it once more with the answers' DOMPurify rules):
//   - no scripts, styles, frames, forms, media or images (an image becomes
//     its alt text): nothing in the article runs, and nothing is loaded
//     from anywhere, the library included;
//   - no attributes but a link's href, a cell's spans, title, lang and
//     dir (no ids or classes that could match the window's own, no style);
//   - a link to another page of the same library becomes that page's
//     zim://LIBRARY/PATH address (the reader opens it in place); an
//     http(s) link stays absolute (the reader asks before it leaves);
//     every other link (javascript:, data:, file:, a fragment, one that
//     climbs out of the library) loses its href and keeps its words.

// readerPolicy is bluemonday's allow-list for the reader: structure,
// text, lists, tables and code; links with http(s) and zim addresses only.
func readerPolicy() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowElements("h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "div", "span", "section", "article",
		"header", "footer", "main", "aside", "blockquote", "pre", "code", "kbd", "samp", "var", "tt", "em", "strong",
		"b", "i", "u", "s", "sub", "sup", "small", "mark", "abbr", "cite", "q", "dfn", "del", "ins", "dl", "dt", "dd",
		"ul", "ol", "li", "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "colgroup", "col",
		"figure", "figcaption", "details", "summary", "time", "wbr", "ruby", "rt", "rp", "center", "big", "nav")
	p.AllowAttrs("title", "lang").Globally()
	p.AllowAttrs("dir").Matching(bluemonday.Direction).Globally()
	p.AllowAttrs("colspan", "rowspan").Matching(bluemonday.Integer).OnElements("td", "th")
	p.AllowAttrs("href").OnElements("a")
	p.AllowElements("a")
	p.AllowURLSchemes("http", "https", "zim")
	p.RequireParseableURLs(true)
	p.AllowRelativeURLs(false)
	return p
}

var policy = readerPolicy()

// dropped are the elements whose contents are no part of the text.
var dropped = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Svg: true, atom.Math: true, atom.Title: true,
	atom.Video: true, atom.Audio: true, atom.Canvas: true, atom.Select: true, atom.Textarea: true, atom.Picture: true}

// ReaderHTML is a library's article (its page at path in book) as the
// reader shows it: its main part where the page marks one (<main>,
// <article> or role="main", as Sphinx's and MediaWiki's pages do: not the
// site's navigation), links rewritten and images as their alt text, then
// through bluemonday's allow-list. It reads the page as tokens, not as a
// tree (x/net/html's parser refuses pages nested over 512 deep, which a
// hostile page is).
func ReaderHTML(book, path string, page []byte) string {
	z := xhtml.NewTokenizer(bytes.NewReader(page))
	var out region
	var skip int // inside a dropped element, nested this deep
	var skipping atom.Atom
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			break
		}
		switch tt {
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			open := tt == xhtml.StartTagToken
			switch {
			case skip > 0:
				if open && a == skipping {
					skip++
				}
			case dropped[a]:
				if open {
					skip, skipping = 1, a
				}
			case a == atom.Img || a == atom.Image:
				if alt := strings.TrimSpace(attrs(z, hasAttr)["alt"]); alt != "" {
					out.text(html.EscapeString("[image: " + alt + "]"))
				}
			case a == atom.A:
				out.open(string(name), a, open, "")
				out.write(linkTag(book, path, attrs(z, hasAttr), tt))
			default:
				role := ""
				if out.state == 0 && hasAttr {
					role = attrs(z, hasAttr)["role"]
				}
				out.open(string(name), a, open, role)
				out.write(string(z.Raw()))
			}
		case xhtml.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if skip > 0 {
				if a == skipping {
					skip--
				}
			} else if !dropped[a] {
				out.write(string(z.Raw()))
				out.close(string(name))
			}
		case xhtml.TextToken:
			if skip == 0 {
				out.text(string(z.Raw()))
			}
		}
	}
	return strings.TrimSpace(policy.Sanitize(out.result()))
}

// attrs are the current tag's attributes (the first of each name).
func attrs(z *xhtml.Tokenizer, more bool) map[string]string {
	m := map[string]string{}
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		if _, dup := m[string(k)]; !dup {
			m[string(k)] = string(v)
		}
	}
	return m
}

// linkTag is an <a> tag with its href rewritten (LinkTarget) and its
// title kept: nothing else of a link is shown.
func linkTag(book, path string, at map[string]string, tt xhtml.TokenType) string {
	t := xhtml.Token{Type: xhtml.StartTagToken, DataAtom: atom.A, Data: "a"}
	if to := LinkTarget(book, path, at["href"]); to != "" {
		t.Attr = append(t.Attr, xhtml.Attribute{Key: "href", Val: to})
	}
	if v, ok := at["title"]; ok {
		t.Attr = append(t.Attr, xhtml.Attribute{Key: "title", Val: v})
	}
	s := t.String()
	if tt == xhtml.SelfClosingTagToken {
		s += "</a>"
	}
	return s
}

// region collects the whole page and, apart, its first main part.
type region struct {
	all, main strings.Builder
	state     int // 0 no main part yet, 1 inside it, 2 past it
	tag       string
	depth     int
	words     bool // the main part has text
}

func (r *region) open(name string, a atom.Atom, open bool, role string) {
	if r.state == 0 && open && (a == atom.Main || a == atom.Article || role == "main") {
		r.state, r.tag = 1, name
	}
	if r.state == 1 && open && name == r.tag {
		r.depth++
	}
}

func (r *region) write(s string) {
	r.all.WriteString(s)
	if r.state == 1 {
		r.main.WriteString(s)
	}
}

func (r *region) text(s string) {
	r.write(s)
	if r.state == 1 && !r.words {
		r.words = strings.TrimSpace(s) != ""
	}
}

func (r *region) close(name string) {
	if r.state == 1 && name == r.tag {
		if r.depth--; r.depth == 0 {
			r.state = 2
		}
	}
}

func (r *region) result() string {
	if r.words {
		return r.main.String()
	}
	return r.all.String()
}

// ReaderText is a plain-text entry as the reader shows it.
func ReaderText(text []byte) string {
	return "<pre>" + html.EscapeString(strings.ToValidUTF8(string(text), "\uFFFD")) + "</pre>"
}

// LinkTarget is where a link (href) of the article at path in book leads
// in the reader: another page of the library as its zim:// address, a web
// page as its absolute http(s) address, or "" (no link).
func LinkTarget(book, path, href string) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	if strings.HasPrefix(href, "//") {
		href = "https:" + href
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if u.Scheme != "" {
		if (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil {
			return u.String()
		}
		return ""
	}
	if u.Host != "" || u.Path == "" {
		return ""
	}
	var parts []string
	if !strings.HasPrefix(u.Path, "/") {
		parts = strings.Split(path, "/")
		parts = parts[:len(parts)-1]
	}
	for _, seg := range strings.Split(u.Path, "/") {
		switch seg {
		case "", ".":
		case "..":
			if len(parts) == 0 {
				return "" // out of the library
			}
			parts = parts[:len(parts)-1]
		default:
			parts = append(parts, seg)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ZIMURL(book, strings.Join(parts, "/"))
}
