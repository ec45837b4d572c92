package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"rehome/backend/llm"
)

// Hit is one passage found for a query.
type Hit struct {
	File    string  `json:"file"`
	Page    int     `json:"page,omitempty"`
	PageEnd int     `json:"page_end,omitempty"`
	Section string  `json:"section,omitempty"`
	Text    string  `json:"text"`
	Score   float64 `json:"score"`
	SHA256  string  `json:"sha256"`
	Chunk   int     `json:"chunk"`
}

// DefaultTop is how many passages a search returns unless asked.
const DefaultTop = 8

// Search ranks the assistant's passages for query (BM25, fused with the
// embeddings' ranking when the assistant has them: see vectors.go), in
// the file named file only when it is set; top at most (0: DefaultTop).
func (s *Service) Search(ctx context.Context, id, query, file string, top int) ([]Hit, error) {
	if top <= 0 {
		top = DefaultTop
	}
	m, dir, err := s.load(id)
	if err != nil {
		return nil, err
	}
	sha := ""
	if file != "" {
		f, err := resolve(m, id, file)
		if err != nil {
			return nil, err
		}
		sha = f.SHA256
	}
	if len(m.Files) == 0 {
		return []Hit{}, nil
	}
	ix, err := s.index(id, dir)
	if err != nil {
		return nil, err
	}
	hits, _, err := s.rank(ctx, ix, dir, query, sha, top)
	if err != nil {
		return nil, err
	}
	out := make([]Hit, 0, len(hits))
	for _, h := range hits {
		out = append(out, Hit{File: h.Doc.File, Page: int(h.Doc.Page), PageEnd: int(h.Doc.PageEnd), Section: h.Doc.Section,
			Text: h.Doc.Text, Score: h.Score, SHA256: h.Doc.SHA, Chunk: int(h.Doc.N)})
	}
	return out, nil
}

func extOf(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[i:]
	}
	return ""
}

func names(m *manifest) string {
	var s []string
	for _, f := range m.Files {
		s = append(s, f.Name)
	}
	return strings.Join(s, ", ")
}

// ToolName is the knowledge tool's name, the one ChatGPT's own has.
const ToolName = "file_search"

// Tool is the file_search entry of the ask loop for the assistant: the
// model calls it with a query (and a file name, optionally) and gets the
// top passages numbered [n], cut to the context budget; a model without
// tool calling gets the passages for the question up front.
func (s *Service) Tool(id string) (llm.LoopTool, error) {
	files, err := s.List(id)
	if err != nil {
		return llm.LoopTool{}, err
	}
	var indexed []string
	for _, f := range files {
		if f.State == StateIndexed {
			indexed = append(indexed, f.Name)
		}
	}
	desc := "Searches the assistant's knowledge files (" + strings.Join(indexed, ", ") + ") and returns the passages that best match the query, numbered [1], [2]… with their file and page or section. Call it before answering a question the files may answer; search again with other words if the passages do not answer it."
	params := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"query": map[string]any{"type": "string", "description": "What to look for, in the words the files would use."},
			"file":  map[string]any{"type": "string", "description": "Only this file (its name), when the user names one."},
		},
		"required": []string{"query"},
	}
	call := func(ctx context.Context, in llm.ToolInput, query, file string) llm.ToolOutput {
		hits, err := s.Search(ctx, id, query, file, 2*DefaultTop)
		if err != nil {
			return llm.ToolOutput{Text: "(file_search failed: " + err.Error() + ")", Error: err.Error()}
		}
		return Render(hits, in.FirstCitation, in.BudgetTokens)
	}
	return llm.LoopTool{
		Name: ToolName, Description: desc, Parameters: params,
		Prompt: "The assistant's knowledge files are searched with `file_search`" +
			" (models without tool calling are given the passages for the question below). Answer from the passages; cite each fact with the passage's number in brackets, like [1] or [2][3], right after it. If the passages do not say, say that the files do not say.",
		Call: func(ctx context.Context, in llm.ToolInput) llm.ToolOutput {
			var a struct {
				Query string `json:"query"`
				File  string `json:"file"`
			}
			if err := json.Unmarshal([]byte(in.Arguments), &a); err != nil || strings.TrimSpace(a.Query) == "" {
				msg := "call file_search with {\"query\": \"...\"} (and optionally \"file\")"
				return llm.ToolOutput{Text: "(" + msg + ")", Error: msg}
			}
			return call(ctx, in, a.Query, a.File)
		},
		UpFront: func(ctx context.Context, in llm.ToolInput) llm.ToolOutput { return call(ctx, in, in.Question, "") },
	}, nil
}

// maxPassages is the most passages one call returns (ChatGPT's 20).
const maxPassages = 20

// Render numbers hits from first as the model reads them — "[n] file,
// page p: text" — and as citations; within budget tokens (0: no limit)
// and maxPassages, saying what was left out.
func Render(hits []Hit, first, budget int) llm.ToolOutput {
	if len(hits) == 0 {
		return llm.ToolOutput{Text: "(no passage of the files matches: search with other words, or say the files do not say)"}
	}
	var b strings.Builder
	var out llm.ToolOutput
	used := 0
	for i, h := range hits {
		n := first + len(out.Citations)
		place := Place(h.Page, h.PageEnd, h.Section)
		entry := fmt.Sprintf("[%d] %s%s:\n%s\n\n", n, h.File, place, strings.TrimSpace(h.Text))
		t := llm.EstimateTokens(entry)
		if len(out.Citations) >= maxPassages || (budget > 0 && used+t > budget && len(out.Citations) > 0) {
			out.Notes = append(out.Notes, fmt.Sprintf("file_search found %d passages; %d were given to the model and %d left out to fit its context.", len(hits), len(out.Citations), len(hits)-i))
			break
		}
		if budget > 0 && t > budget { // even one passage is too long: its head
			cut := budget * llm.BytesPerToken
			for cut > 0 && cut < len(entry) && (entry[cut]&0xC0) == 0x80 {
				cut--
			}
			entry = entry[:min(cut, len(entry))] + " …\n\n"
			out.Notes = append(out.Notes, fmt.Sprintf("file_search's first passage was cut to %d tokens to fit the model's context.", budget))
		}
		used += t
		b.WriteString(entry)
		quote := strings.TrimSpace(h.Text)
		if r := []rune(quote); len(r) > 600 {
			quote = string(r[:600]) + "…"
		}
		out.Citations = append(out.Citations, llm.Citation{N: n, File: h.File, Page: h.Page, PageEnd: h.PageEnd, Section: h.Section, Quote: quote})
	}
	out.Text = strings.TrimSpace(b.String())
	return out
}

// Place is ", page 4", ", pages 4–5", ", Section › Sub" or "".
func Place(page, end int, section string) string {
	s := ""
	switch {
	case end > page && page > 0:
		s = fmt.Sprintf(", pages %d–%d", page, end)
	case page > 0:
		s = fmt.Sprintf(", page %d", page)
	}
	if section != "" {
		s += ", " + section
	}
	return s
}

// rank is BM25's top, or — when the assistant's chunks have embeddings
// and their model answers — the reciprocal rank fusion of BM25's and
// the embeddings' top 50 each; note says why embeddings were not used
// when they exist but could not be asked.
func (s *Service) rank(ctx context.Context, ix *textIndex, dir, query, sha string, top int) ([]hit, string, error) {
	pool := max(top, 50)
	bm, err := ix.search(query, sha, pool)
	if err != nil {
		return nil, "", err
	}
	sem, note := s.semantic(ctx, dir, query, sha, pool)
	if sem == nil {
		return bm[:min(top, len(bm))], note, nil
	}
	byID := map[string]hit{}
	var bmIDs []string
	for _, h := range bm {
		byID[h.ID] = h
		bmIDs = append(bmIDs, h.ID)
	}
	fused := fuse(bmIDs, sem)
	fused = fused[:min(top, len(fused))]
	var missing []string
	for _, f := range fused {
		if _, ok := byID[f.id]; !ok {
			missing = append(missing, f.id)
		}
	}
	more, err := ix.docs(missing)
	if err != nil {
		return nil, "", err
	}
	for _, h := range more {
		byID[h.ID] = h
	}
	out := make([]hit, 0, len(fused))
	for _, f := range fused {
		if h, ok := byID[f.id]; ok {
			h.Score = f.score
			out = append(out, h)
		}
	}
	return out, "", nil
}
