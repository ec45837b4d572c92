package browse

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strings"
)

// SearchResult is what a search found, with notes in words (a library
// whose file is gone, an engine that did not answer).
type SearchResult struct {
	Hits  []Hit    `json:"hits"`
	Notes []string `json:"notes,omitempty"`
	// Where says what was searched ("the library python (Python 3.11
	// docs)", "SearXNG at …").
	Where []string `json:"where"`
}

// SearchOptions say what a search covers.
type SearchOptions struct {
	// Top is how many hits at most (default 8).
	Top int
	// Library searches only the library of that name.
	Library string
	// Web adds the search engine's hits when the web is on.
	Web bool
	// AirGapped turns the web off whatever the settings say.
	AirGapped bool
}

// Search runs query through the carried libraries' full-text indexes
// (each through kiwix-serve), then — when o.Web and the web is on — the
// search engine; the hits of each source take turns.
func (s *Service) Search(ctx context.Context, query string, o SearchOptions) (SearchResult, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return SearchResult{}, fmt.Errorf("nothing to search for: give words to search")
	}
	top := o.Top
	if top <= 0 {
		top = 8
	}
	set, err := s.Settings()
	if err != nil {
		return SearchResult{}, err
	}
	var res SearchResult
	libs := set.Libraries
	if o.Library != "" {
		l, err := s.Get(o.Library)
		if err != nil {
			return res, err
		}
		libs = []Library{l}
	}
	var lists [][]Hit
	bs, notes := books(set.Libraries)
	res.Notes = append(res.Notes, notes...)
	if len(bs) > 0 {
		err := s.Kiwix.Use(ctx, bs, func(k *Kiwix) error {
			for _, l := range libs {
				if _, ok := bs[l.Name]; !ok {
					continue
				}
				res.Where = append(res.Where, fmt.Sprintf("the library %s (%s)", l.Name, l.Title))
				if !l.FullText {
					res.Notes = append(res.Notes, l.Name+" has no full-text index (the ZIM was made without one): it cannot be searched, only opened")
					continue
				}
				hits, err := k.Search(ctx, l.Name, query, top)
				if err != nil {
					res.Notes = append(res.Notes, fmt.Sprintf("searching %s failed: %v", l.Name, err))
					continue
				}
				lists = append(lists, hits)
			}
			return nil
		})
		if err != nil {
			return res, err
		}
	}
	if o.Web && o.Library == "" {
		hits, where, notes, err := s.searchWeb(ctx, set, query, top, o.AirGapped)
		res.Notes = append(res.Notes, notes...)
		if err == nil {
			lists = append(lists, hits)
			res.Where = append(res.Where, where)
		} else if len(lists) == 0 && len(libs) == 0 {
			return res, err
		} else {
			res.Notes = append(res.Notes, err.Error())
		}
	}
	if len(lists) == 0 && len(res.Where) == 0 {
		return res, fmt.Errorf("%w: add a Kiwix library with `rehome library add FILE.zim`, or set a search engine in Settings → Browsing", ErrNoLibrary)
	}
	res.Hits = interleave(lists, top)
	return res, nil
}

func (s *Service) searchWeb(ctx context.Context, set Settings, query string, top int, airGapped bool) ([]Hit, string, []string, error) {
	switch {
	case airGapped || set.AirGapped:
		return nil, "", nil, fmt.Errorf("%w (Settings → Browsing, or the assistant's air-gapped audit): web search is off; the carried libraries answer", ErrAirGapped)
	case set.Engine() == "":
		return nil, "", nil, fmt.Errorf("%w: set a SearXNG address or a Brave Search API key in Settings → Browsing", ErrNoEngine)
	}
	hc := s.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	if set.SearXNG != "" {
		hits, notes, err := SearchSearXNG(ctx, hc, set.SearXNG, query, top)
		return hits, "SearXNG at " + set.SearXNG, notes, err
	}
	hits, err := SearchBrave(ctx, hc, s.BraveURL, set.BraveKey, query, top)
	return hits, "Brave Search", nil, err
}

// interleave takes the lists' hits in turn, at most top.
func interleave(lists [][]Hit, top int) []Hit {
	var out []Hit
	seen := map[string]bool{}
	for i := 0; len(out) < top; i++ {
		more := false
		for _, l := range lists {
			if i < len(l) {
				more = true
				if !seen[l[i].URL] && len(out) < top {
					seen[l[i].URL] = true
					out = append(out, l[i])
				}
			}
		}
		if !more {
			break
		}
	}
	return out
}

// Opened is a page's or an article's bytes, before its text is extracted.
type Opened struct {
	Page
	// Source is the address to cite: zim://BOOK/PATH or the page's URL.
	Source string
	// Title is the page's <title>, when it has one.
	Title string
	// Library names the carried library an article came from.
	Library string
}

// OpenOptions say what may be opened.
type OpenOptions struct {
	// AirGapped refuses web pages whatever the settings say.
	AirGapped bool
}

// Open returns the bytes of a library's article (zim://BOOK/PATH) or of
// a web page (http(s), within the guards and the settings).
func (s *Service) Open(ctx context.Context, address string, o OpenOptions) (Opened, error) {
	address = strings.TrimSpace(address)
	set, err := s.Settings()
	if err != nil {
		return Opened{}, err
	}
	if book, path, ok := ParseZIMURL(address); ok {
		l, err := s.Get(book)
		if err != nil {
			return Opened{}, err
		}
		if err := l.Check(); err != nil {
			return Opened{}, err
		}
		bs, _ := books(set.Libraries)
		var op Opened
		err = s.Kiwix.Use(ctx, bs, func(k *Kiwix) error {
			body, ct, err := k.Raw(ctx, book, path)
			if err != nil {
				return err
			}
			mt := strings.TrimSpace(strings.Split(ct, ";")[0])
			op = Opened{Page: Page{URL: address, ContentType: mt, Body: body, Size: int64(len(body))}, Source: ZIMURL(book, path), Library: l.Title}
			return nil
		})
		op.Title = TitleOf(op.Body)
		return op, err
	}
	if strings.HasPrefix(address, "zim:") {
		return Opened{}, fmt.Errorf("%w: %q is not a zim://LIBRARY/PATH address", ErrRefused, address)
	}
	if o.AirGapped || set.AirGapped {
		return Opened{}, fmt.Errorf("%w: web pages are not opened; articles of the carried libraries are (zim://…)", ErrAirGapped)
	}
	f := s.fetcher(set)
	p, err := f.Get(ctx, address)
	if err != nil {
		return Opened{}, err
	}
	return Opened{Page: p, Source: p.URL, Title: TitleOf(p.Body)}, nil
}

// fetcher is the page fetcher for the settings (one per AllowLAN, so
// robots.txt is read once an hour).
func (s *Service) fetcher(set Settings) *Fetcher {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	if s.fetchers == nil {
		s.fetchers = map[bool]*Fetcher{}
	}
	f := s.fetchers[set.AllowLAN]
	if f == nil {
		f = &Fetcher{AllowLAN: set.AllowLAN, public: s.testPublic}
		s.fetchers[set.AllowLAN] = f
	}
	return f
}

var titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// TitleOf is an HTML page's <title> (from its first 64 KiB), on one line.
func TitleOf(b []byte) string {
	if len(b) > 64<<10 {
		b = b[:64<<10]
	}
	m := titleRE.FindSubmatch(b)
	if m == nil {
		return ""
	}
	return clean(html.UnescapeString(tagRE.ReplaceAllString(string(m[1]), "")), 200)
}
