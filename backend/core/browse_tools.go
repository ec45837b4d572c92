package core

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"rehome/backend/assistant"
	"rehome/backend/browse"
	"rehome/backend/llm"
)

// The tools an answer browses with, as ChatGPT's browser offers them:
// web_search(query) over the carried libraries (and the web where it is
// on), open_url(url) for a zim:// article or a web page; each result
// and page a numbered source the answer cites as [n].

// maxSearchHits is how many hits one web_search gives the model.
const maxSearchHits = 6

// maxPageTokens is the most of one page's text the model is given.
const maxPageTokens = 6000

// AddTools appends web_search and open_url to tools when the assistant
// has web browsing on (its capability) or the face asks (force: `rehome
// ask --browse`), and there is something to browse; notes say why not
// otherwise. Forced with nothing to browse, it is an error that says
// what to do.
func (b *Browse) AddTools(tools []llm.LoopTool, notes []string, assistantID string, force bool) ([]llm.LoopTool, []string, error) {
	if b.svc == nil {
		return tools, notes, nil
	}
	on := force
	if !on && assistantID != "" {
		if a, err := b.c.assistants.Get(assistantID); err == nil {
			on = slices.Contains(a.Capabilities, assistant.WebBrowsing)
		}
	}
	if !on {
		return tools, notes, nil
	}
	set, err := b.svc.Settings()
	if err != nil {
		return tools, notes, err
	}
	airGapped := set.AirGapped || b.c.Actions().AirGapped(assistantID)
	web := !airGapped && set.Engine() != ""
	if len(set.Libraries) == 0 && !web {
		why := "no Kiwix library is carried and no search engine is set: add one with `rehome library add FILE.zim`, or set SearXNG or Brave in Settings → Browsing"
		if airGapped {
			why = "the machine is air-gapped and no Kiwix library is carried: add one with `rehome library add FILE.zim`"
		}
		if force {
			return tools, notes, fmt.Errorf("%w: %s", ErrNothingToBrowse, why)
		}
		return tools, append(notes, "web browsing is on for this assistant, but "+why), nil
	}
	bt := &browseTools{b: b, airGapped: airGapped, web: web, where: b.where(set, web)}
	return append(tools, bt.search(), bt.open()), notes, nil
}

// where says what web_search covers, for the model.
func (b *Browse) where(set browse.Settings, web bool) string {
	var parts []string
	for _, l := range set.Libraries {
		parts = append(parts, fmt.Sprintf("%s (%s, %d articles)", l.Title, l.Name, l.Articles))
	}
	s := ""
	if len(parts) > 0 {
		s = "the carried offline libraries: " + strings.Join(parts, "; ")
	}
	if web {
		if s != "" {
			s += ", and "
		}
		s += "the web"
	}
	return s
}

type browseTools struct {
	b         *Browse
	airGapped bool
	web       bool
	where     string

	// seen numbers the addresses this question's searches gave: a page
	// opened from a hit is cited under the hit's number.
	mu   sync.Mutex
	seen map[string]int
}

func (t *browseTools) number(url string, n int) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.seen == nil {
		t.seen = map[string]int{}
	}
	if was, ok := t.seen[url]; ok {
		return was
	}
	t.seen[url] = n
	return n
}

func (t *browseTools) search() llm.LoopTool {
	return llm.LoopTool{
		Name:        "web_search",
		Description: "Searches " + t.where + ". Returns numbered results, each with its title, address and a snippet. Read one with open_url before you rely on it.",
		Parameters: map[string]any{"type": "object", "required": []string{"query"},
			"properties": map[string]any{"query": map[string]any{"type": "string", "description": "Words to search for."}}},
		Prompt: "You can search " + t.where + " with `web_search` and read a result with `open_url` (its address: https://… or zim://…). " +
			"Cite what you use as [n], the number the result or the page was given." + map[bool]string{true: " This machine is air-gapped: the web is off, and only the carried libraries can be searched and opened.", false: ""}[t.airGapped],
		Call: func(ctx context.Context, in llm.ToolInput) llm.ToolOutput {
			var args struct {
				Query string `json:"query"`
			}
			if err := json.Unmarshal([]byte(in.Arguments), &args); err != nil || strings.TrimSpace(args.Query) == "" {
				return llm.ToolOutput{Text: `(web_search needs {"query": "words to search"})`, Error: "no query"}
			}
			return t.runSearch(ctx, args.Query, in)
		},
		UpFront: t.upFront,
	}
}

func (t *browseTools) runSearch(ctx context.Context, query string, in llm.ToolInput) llm.ToolOutput {
	res, err := t.b.svc.Search(ctx, query, browse.SearchOptions{Top: maxSearchHits, Web: t.web, AirGapped: t.airGapped})
	if err != nil {
		return llm.ToolOutput{Text: "(the search failed: " + err.Error() + ")", Error: err.Error(), Notes: res.Notes}
	}
	out := llm.ToolOutput{Notes: res.Notes}
	if len(res.Hits) == 0 {
		out.Text = "(nothing found in " + strings.Join(res.Where, " and ") + ": search with other words)"
		return out
	}
	var b strings.Builder
	for i, h := range res.Hits {
		n := t.number(h.URL, in.FirstCitation+i)
		fmt.Fprintf(&b, "[%d] %s — %s (%s)\n%s\n\n", n, h.Title, h.URL, h.Source, h.Snippet)
		out.Citations = append(out.Citations, llm.Citation{N: n, File: h.Title, Title: h.Title, URL: h.URL, Section: h.Source, Quote: h.Snippet})
	}
	out.Text = strings.TrimSpace(b.String())
	return out
}

func (t *browseTools) open() llm.LoopTool {
	return llm.LoopTool{
		Name:        "open_url",
		Description: "Opens a page and returns its text: a web_search result's address (zim://… for the offline libraries" + map[bool]string{true: ", https://… for the web", false: ""}[t.web] + ").",
		Parameters: map[string]any{"type": "object", "required": []string{"url"},
			"properties": map[string]any{"url": map[string]any{"type": "string", "description": "The page's address, as web_search gave it."}}},
		Call: func(ctx context.Context, in llm.ToolInput) llm.ToolOutput {
			var args struct {
				URL string `json:"url"`
			}
			if err := json.Unmarshal([]byte(in.Arguments), &args); err != nil || strings.TrimSpace(args.URL) == "" {
				return llm.ToolOutput{Text: `(open_url needs {"url": "an address web_search gave"})`, Error: "no url"}
			}
			return t.runOpen(ctx, args.URL, in.FirstCitation, budgetOf(in.BudgetTokens))
		},
	}
}

func budgetOf(b int) int {
	if b <= 0 || b > maxPageTokens {
		return maxPageTokens
	}
	return b
}

func (t *browseTools) runOpen(ctx context.Context, address string, n, budget int) llm.ToolOutput {
	a, err := t.b.Open(ctx, address, t.airGapped, false)
	if err != nil {
		return llm.ToolOutput{Text: "(the page was not opened: " + err.Error() + ")", Error: err.Error()}
	}
	n = t.number(a.Source, n) // a search's hit keeps its number
	text, notes := a.Text, a.Notes
	if tok := llm.EstimateTokens(text); tok > budget {
		cut := budget * llm.BytesPerToken
		for cut > 0 && cut < len(text) && !utf8RuneStart(text[cut]) {
			cut--
		}
		text = text[:min(cut, len(text))] + " …"
		notes = append(notes, fmt.Sprintf("the page's text is about %d tokens; its first %d were given to the model", tok, budget))
	}
	where := a.Source
	if a.Library != "" {
		where += " (" + a.Library + ")"
	}
	quote := oneLineRunes(a.Text, 600)
	return llm.ToolOutput{Text: fmt.Sprintf("[%d] %s — %s\n\n%s", n, a.Title, where, text), Notes: notes,
		Citations: []llm.Citation{{N: n, File: a.Title, Title: a.Title, URL: a.Source, Section: a.Library, Quote: quote}}}
}

// upFront gives a model without tool calling the search's hits for the
// question and the top hit's text.
func (t *browseTools) upFront(ctx context.Context, in llm.ToolInput) llm.ToolOutput {
	out := t.runSearch(ctx, in.Question, in)
	if len(out.Citations) == 0 {
		return out
	}
	budget := budgetOf(in.BudgetTokens) - llm.EstimateTokens(out.Text)
	if budget < 200 {
		return out
	}
	page := t.runOpen(ctx, out.Citations[0].URL, in.FirstCitation+len(out.Citations), budget)
	if page.Error == "" {
		out.Text += "\n\n" + page.Text
		out.Citations = append(out.Citations, page.Citations...)
	}
	out.Notes = append(out.Notes, page.Notes...)
	return out
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

func oneLineRunes(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}
