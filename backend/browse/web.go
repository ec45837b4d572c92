package browse

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// BraveEndpoint is Brave Search's web search API.
const BraveEndpoint = "https://api.search.brave.com/res/v1/web/search"

// engineTimeout and maxEngineAnswer bound one search engine request.
const (
	engineTimeout   = 20 * time.Second
	maxEngineAnswer = 2 << 20
)

// An engine's name (a hit's source) and its notes (SearXNG's
// unresponsive engines) are its words: each on one line, within these.
const (
	maxEngineName  = 64
	maxEngineNotes = 8
	maxNoteRunes   = 200
)

// searxngAnswer is SearXNG's JSON answer, as searx/webutils.py's
// get_json_response writes it (searxng/searxng; the fields of
// docs/dev/search_api.rst's format=json).
type searxngAnswer struct {
	Query   string `json:"query"`
	Number  int    `json:"number_of_results"`
	Results []struct {
		URL     string   `json:"url"`
		Title   string   `json:"title"`
		Content string   `json:"content"`
		Engine  string   `json:"engine"`
		Engines []string `json:"engines"`
	} `json:"results"`
	Unresponsive [][]string `json:"unresponsive_engines"`
}

// SearchSearXNG asks the SearXNG at base (its /search?format=json).
func SearchSearXNG(ctx context.Context, hc *http.Client, base, query string, top int) ([]Hit, []string, error) {
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, fmt.Errorf("%w: %q is not the address of a SearXNG (such as http://127.0.0.1:8888)", ErrEngine, base)
	}
	u.Path = strings.TrimSuffix(u.Path, "/search") + "/search"
	u.RawQuery = url.Values{"q": {query}, "format": {"json"}}.Encode()
	body, err := engineGet(ctx, hc, u.String(), nil)
	if err != nil {
		if strings.Contains(err.Error(), "403") {
			err = fmt.Errorf("%w (SearXNG answers 403 when its JSON format is off: add json under search.formats in its settings.yml)", err)
		}
		return nil, nil, err
	}
	var a searxngAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, nil, fmt.Errorf("%w: SearXNG's answer is not its JSON (%v): is %s a SearXNG?", ErrEngine, err, base)
	}
	var out []Hit
	for _, r := range a.Results {
		if !webURL(r.URL) {
			continue
		}
		out = append(out, Hit{Title: clean(r.Title, 300), URL: r.URL, Snippet: clean(html.UnescapeString(tagRE.ReplaceAllString(r.Content, "")), 600), Source: "SearXNG (" + clean(r.Engine, maxEngineName) + ")"})
		if len(out) == top {
			break
		}
	}
	return out, unresponsive(a.Unresponsive), nil
}

// unresponsive are SearXNG's notes of the engines that did not answer:
// each [engine, error] on one line (an empty one left out), at most
// maxEngineNotes (the last then counts the rest).
func unresponsive(list [][]string) []string {
	var words []string
	for _, e := range list {
		if w := clean(strings.Join(e, ": "), maxNoteRunes); w != "" {
			words = append(words, w)
		}
	}
	var notes []string
	for i, w := range words {
		if i == maxEngineNotes-1 && len(words) > maxEngineNotes {
			return append(notes, fmt.Sprintf("SearXNG's %d more engines did not answer", len(words)-i))
		}
		notes = append(notes, "SearXNG's "+w)
	}
	return notes
}

type braveAnswer struct {
	Web struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
		} `json:"results"`
	} `json:"web"`
}

// SearchBrave asks Brave Search's web search API with key.
func SearchBrave(ctx context.Context, hc *http.Client, endpoint, key, query string, top int) ([]Hit, error) {
	q := url.Values{"q": {query}, "count": {strconv.Itoa(min(max(top, 1), 20))}}
	body, err := engineGet(ctx, hc, endpoint+"?"+q.Encode(), map[string]string{"X-Subscription-Token": key, "Accept": "application/json"})
	if err != nil {
		if strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "422") {
			err = fmt.Errorf("%w (Brave refused the API key: check it in Settings → Browsing)", err)
		}
		return nil, err
	}
	var a braveAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("%w: Brave's answer is not JSON: %v", ErrEngine, err)
	}
	var out []Hit
	for _, r := range a.Web.Results {
		if webURL(r.URL) {
			out = append(out, Hit{Title: clean(r.Title, 300), URL: r.URL, Snippet: clean(html.UnescapeString(tagRE.ReplaceAllString(r.Description, "")), 600), Source: "Brave Search"})
		}
		if len(out) == top {
			break
		}
	}
	return out, nil
}

func engineGet(ctx context.Context, hc *http.Client, u string, headers map[string]string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, engineTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", UserAgent)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("%w: it did not answer within %s", ErrEngine, engineTimeout)
		}
		return nil, fmt.Errorf("%w: %v", ErrEngine, redactURL(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxEngineAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEngine, err)
	}
	if len(body) > maxEngineAnswer {
		return nil, fmt.Errorf("%w: its answer is over %d MB", ErrEngine, maxEngineAnswer>>20)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: it answered %s", ErrEngine, resp.Status)
	}
	return body, nil
}

// redactURL keeps a query (which may carry what the user asked) out of
// an error's words.
func redactURL(err error) error {
	if ue, ok := err.(*url.Error); ok {
		if u, perr := url.Parse(ue.URL); perr == nil {
			u.RawQuery = ""
			return fmt.Errorf("%s %s: %v", ue.Op, u.String(), ue.Err)
		}
	}
	return err
}

func webURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// clean is s on one line, without control characters, at most n runes.
func clean(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}
