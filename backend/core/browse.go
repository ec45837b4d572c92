package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"rehome/backend/audit"
	"rehome/backend/browse"
)

// Browse is web browsing as rehome hosts it, for every face: the carried
// Kiwix libraries (add, list, remove, search, open), the search engine
// and the LAN switch of Settings → Browsing, and the web_search and
// open_url tools of an answer (browse_tools.go).
type Browse struct {
	c   *Core
	svc *browse.Service
}

// Browse is the browsing service.
func (c *Core) Browse() *Browse {
	c.brMu.Lock()
	defer c.brMu.Unlock()
	if c.br == nil || (c.br.svc == nil && c.st != nil) {
		c.br = &Browse{c: c}
		if c.st != nil { // before Open, every method says why not
			c.br.svc = browse.NewService(c.st, c.dir, filepath.Join(c.dir, "logs"))
		}
	}
	return c.br
}

// closeBrowse stops kiwix-serve, if it runs.
func (c *Core) closeBrowse() {
	c.brMu.Lock()
	defer c.brMu.Unlock()
	if c.br != nil && c.br.svc != nil {
		c.br.svc.Close()
	}
	c.br = nil
}

// browsingFacts are what the audit reasons about web browsing from: the
// carried libraries and the search engine (none when air-gapped).
func (c *Core) browsingFacts() audit.Browsing {
	b := c.Browse()
	if b.svc == nil {
		return audit.Browsing{}
	}
	s, err := b.svc.Settings()
	if err != nil {
		return audit.Browsing{}
	}
	var out audit.Browsing
	for _, l := range s.Libraries {
		if l.Check() == nil {
			out.Libraries = append(out.Libraries, l.Title)
		}
	}
	switch {
	case s.AirGapped:
	case s.SearXNG != "":
		out.Engine = "SearXNG at " + s.SearXNG
	case s.BraveKey != "":
		out.Engine = "Brave Search"
	}
	return out
}

// LibraryView is a carried library as the faces show it.
type LibraryView struct {
	browse.Library
	// Problem is why it cannot be served now ("" when it can).
	Problem string `json:"problem,omitempty"`
}

// AddLibrary checks and registers a ZIM file (see browse.Service.Add).
func (b *Browse) AddLibrary(ctx context.Context, path string, o browse.AddOptions) (browse.Library, error) {
	if err := b.c.Ready(); err != nil {
		return browse.Library{}, err
	}
	return b.svc.Add(ctx, path, o)
}

// Libraries lists the carried libraries, each with what stops it being
// served.
func (b *Browse) Libraries() ([]LibraryView, error) {
	if err := b.c.Ready(); err != nil {
		return nil, err
	}
	libs, err := b.svc.List()
	out := make([]LibraryView, 0, len(libs))
	for _, l := range libs {
		v := LibraryView{Library: l}
		if err := l.Check(); err != nil {
			v.Problem = err.Error()
		}
		out = append(out, v)
	}
	return out, err
}

// RemoveLibrary forgets a library (rehome's copy deleted, the user's file
// never).
func (b *Browse) RemoveLibrary(name string) (browse.Library, error) {
	if err := b.c.Ready(); err != nil {
		return browse.Library{}, err
	}
	return b.svc.Remove(name)
}

// Search searches the libraries (and the web when web is true and the
// settings allow it).
func (b *Browse) Search(ctx context.Context, query string, o browse.SearchOptions) (browse.SearchResult, error) {
	if err := b.c.Ready(); err != nil {
		return browse.SearchResult{}, err
	}
	return b.svc.Search(ctx, query, o)
}

// BrowsingSettings are Settings → Browsing as the faces show them: the
// Brave key is never given back, only whether one is set.
type BrowsingSettings struct {
	SearXNG     string `json:"searxng_url"`
	HasBraveKey bool   `json:"has_brave_key"`
	AllowLAN    bool   `json:"allow_lan"`
	AirGapped   bool   `json:"air_gapped"`
	// Engine is "searxng", "brave" or "".
	Engine string `json:"engine"`
	// Words say what browsing reaches now.
	Words string `json:"words"`
}

// BrowsingChange changes some of the settings (nil fields stay).
type BrowsingChange struct {
	SearXNG   *string `json:"searxng_url,omitempty"`
	BraveKey  *string `json:"brave_key,omitempty"`
	AllowLAN  *bool   `json:"allow_lan,omitempty"`
	AirGapped *bool   `json:"air_gapped,omitempty"`
}

// Settings are the saved browsing settings.
func (b *Browse) Settings() (BrowsingSettings, error) {
	if err := b.c.Ready(); err != nil {
		return BrowsingSettings{}, err
	}
	s, err := b.svc.Settings()
	if err != nil {
		return BrowsingSettings{}, err
	}
	return viewOf(s), nil
}

func viewOf(s browse.Settings) BrowsingSettings {
	return BrowsingSettings{SearXNG: s.SearXNG, HasBraveKey: s.BraveKey != "", AllowLAN: s.AllowLAN, AirGapped: s.AirGapped,
		Engine: s.Engine(), Words: reachWords(s)}
}

// reachWords says what browsing reaches with s.
func reachWords(s browse.Settings) string {
	libs := len(s.Libraries)
	lib := fmt.Sprintf("%d carried %s", libs, plural(libs, "library", "libraries"))
	switch {
	case s.AirGapped && libs > 0:
		return "air-gapped: the web is off; browsing reads " + lib
	case s.AirGapped:
		return "air-gapped: the web is off, and no library is carried (add a ZIM file)"
	case s.Engine() == "" && libs > 0:
		return "browsing reads " + lib + "; no search engine is set, so the web is not searched"
	case s.Engine() == "":
		return "nothing to browse: add a Kiwix library (a .zim file) or set a search engine"
	}
	engine := "SearXNG at " + s.SearXNG
	if s.Engine() == "brave" {
		engine = "Brave Search"
	}
	lan := "public addresses only"
	if s.AllowLAN {
		lan = "the LAN allowed"
	}
	return fmt.Sprintf("browsing reads %s and searches the web with %s (pages: %s)", lib, engine, lan)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// SaveSettings changes the browsing settings: a SearXNG address must be
// http(s); an empty string clears a field.
func (b *Browse) SaveSettings(ch BrowsingChange) (BrowsingSettings, error) {
	if err := b.c.Ready(); err != nil {
		return BrowsingSettings{}, err
	}
	if ch.SearXNG != nil {
		v := strings.TrimRight(strings.TrimSpace(*ch.SearXNG), "/")
		if v != "" && !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
			return BrowsingSettings{}, fmt.Errorf("%q is not a SearXNG address: give its http:// or https:// address, such as http://127.0.0.1:8888", v)
		}
		ch.SearXNG = &v
	}
	s, err := b.svc.Modify(func(s *browse.Settings) error {
		if ch.SearXNG != nil {
			s.SearXNG = *ch.SearXNG
		}
		if ch.BraveKey != nil {
			s.BraveKey = strings.TrimSpace(*ch.BraveKey)
		}
		if ch.AllowLAN != nil {
			s.AllowLAN = *ch.AllowLAN
		}
		if ch.AirGapped != nil {
			s.AirGapped = *ch.AirGapped
		}
		return nil
	})
	return viewOf(s), err
}

// Article is an opened page or article: its text, extracted inside the
// sandbox, with its title and the address to cite.
type Article struct {
	Title   string `json:"title"`
	Source  string `json:"source"`
	Library string `json:"library,omitempty"`
	Text    string `json:"text"`
	// HTML is the raw page (for the window to render, sanitised), kept
	// only when asked for.
	HTML  string   `json:"html,omitempty"`
	Notes []string `json:"notes,omitempty"`
}

// Open opens a library's article (zim://BOOK/PATH) or a web page and
// extracts its text in the sandbox; airGapped refuses web pages.
func (b *Browse) Open(ctx context.Context, address string, airGapped, keepHTML bool) (Article, error) {
	if err := b.c.Ready(); err != nil {
		return Article{}, err
	}
	op, err := b.svc.Open(ctx, address, browse.OpenOptions{AirGapped: airGapped})
	if err != nil {
		return Article{}, err
	}
	a := Article{Title: op.Title, Source: op.Source, Library: op.Library}
	if op.Truncated {
		a.Notes = append(a.Notes, fmt.Sprintf("the page is over %d MB: only its first %d MB were read", browse.MaxPageBytes>>20, browse.MaxPageBytes>>20))
	}
	if a.Text, err = b.extract(ctx, op); err != nil {
		return a, err
	}
	if a.Title == "" {
		a.Title = address
	}
	if keepHTML && isHTML(op.ContentType) {
		a.HTML = string(op.Body)
	}
	return a, nil
}

func isHTML(ct string) bool { return ct == "text/html" || ct == "application/xhtml+xml" }

// extract is the page's text: HTML and PDF read inside the sandbox by
// the knowledge's parser, plain text on the host.
func (b *Browse) extract(ctx context.Context, op browse.Opened) (string, error) {
	name := ""
	switch {
	case isHTML(op.ContentType):
		name = "page.html"
	case op.ContentType == "application/pdf":
		name = "page.pdf"
	case strings.HasPrefix(op.ContentType, "text/"):
		if !utf8.Valid(op.Body) {
			return strings.ToValidUTF8(string(op.Body), "\uFFFD"), nil
		}
		return string(op.Body), nil
	default:
		return "", fmt.Errorf("%w: %s is %s, a kind of page rehome does not read (it reads HTML, PDF and text)", browse.ErrPage, op.Source, op.ContentType)
	}
	dir := filepath.Join(b.c.dir, browse.LibraryDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, "page-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	path := filepath.Join(tmp, name)
	if err := os.WriteFile(path, op.Body, 0o600); err != nil {
		return "", err
	}
	doc, err := b.c.Knowledge().svc.Extract(ctx, path, name)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return "", err
		}
		return "", fmt.Errorf("%w: its text could not be read in the sandbox: %v", browse.ErrPage, err)
	}
	var t strings.Builder
	last := ""
	for _, s := range doc.Sections {
		// Sphinx's permalink marks (¶) are no part of a heading.
		if h := strings.ReplaceAll(strings.ReplaceAll(s.Section, " ¶", ""), "¶", ""); h != "" && h != last {
			t.WriteString("\n## " + h + "\n")
			last = h
		}
		t.WriteString(strings.TrimSpace(s.Text) + "\n")
	}
	return strings.TrimSpace(t.String()), nil
}
