package knowledge

import (
	"strings"

	"rehome/backend/llm"
)

// Chunking defaults: ChatGPT's file_search numbers (800 tokens, 400 of
// them shared with the chunk before), tokens counted as llm.EstimateTokens
// counts them (4 bytes of UTF-8 text each).
const (
	DefaultChunkTokens   = 800
	DefaultOverlapTokens = 400
)

// Chunking is how a file's text is cut for the index.
type Chunking struct {
	Tokens  int `json:"tokens"`
	Overlap int `json:"overlap"`
}

// WithDefaults fills what is unset and keeps the overlap below the size.
func (c Chunking) WithDefaults() Chunking {
	if c.Tokens <= 0 {
		c.Tokens = DefaultChunkTokens
	}
	if c.Overlap < 0 || (c.Overlap == 0 && c.Tokens == DefaultChunkTokens) {
		c.Overlap = DefaultOverlapTokens
	}
	if c.Overlap >= c.Tokens {
		c.Overlap = c.Tokens / 2
	}
	return c
}

// Chunk is one passage of a file as indexed.
type Chunk struct {
	N       int    `json:"n"`
	Page    int    `json:"page,omitempty"`
	PageEnd int    `json:"page_end,omitempty"`
	Section string `json:"section,omitempty"`
	Text    string `json:"text"`
	Tokens  int    `json:"tokens"`
}

// minSection is the least a chunk holds before a heading ends it: a
// heading with a line under it stays with the next section.
const minSection = 16

// word is one word of a document and the space after it, as offsets
// into its section's text (16 bytes a word: a file's words are held
// together while it is cut).
type word struct {
	section    int32
	start, end int32
	tokens     int32 // of the word, the space after it and nl
}

// nl says whether the word is the last of a section with no space after
// it: a "\n" is added, so that sections do not run into each other.
func (w word) nl(doc Document) bool {
	t := doc.Sections[w.section].Text
	return int(w.end) == len(t) && !isSpace(t[w.end-1])
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// words cuts the sections into words (a run of non-space bytes and the
// space after it; the regexp \S+\s*).
func words(doc Document) []word {
	n := 0 // counted first: a slice grown by append holds up to twice its words
	for _, s := range doc.Sections {
		for k := 1; k <= len(s.Text); k++ {
			if !isSpace(s.Text[k-1]) && (k == len(s.Text) || isSpace(s.Text[k])) {
				n++
			}
		}
	}
	out := make([]word, 0, n)
	for i, s := range doc.Sections {
		t := s.Text
		for k := 0; k < len(t); {
			for k < len(t) && isSpace(t[k]) {
				k++
			}
			if k == len(t) {
				break
			}
			start := k
			for k < len(t) && !isSpace(t[k]) {
				k++
			}
			for k < len(t) && isSpace(t[k]) {
				k++
			}
			n := k - start
			if k == len(t) && !isSpace(t[k-1]) {
				n++
			}
			out = append(out, word{section: int32(i), start: int32(start), end: int32(k), tokens: int32(max((n+llm.BytesPerToken-1)/llm.BytesPerToken, 1))})
		}
	}
	return out
}

// Split cuts a document into chunks of about c.Tokens tokens, each
// sharing c.Overlap tokens with the one before, on word boundaries. A
// new heading or a new page starts a new chunk (once the current one
// holds minSection tokens), so that a citation's page and section say
// where its text is.
func Split(doc Document, c Chunking) []Chunk {
	c = c.WithDefaults()
	ws := words(doc)
	page := func(w word) int { return doc.Sections[w.section].Page }
	var out []Chunk
	start := 0
	for start < len(ws) {
		end, size := start, 0
		for end < len(ws) && size+int(ws[end].tokens) <= c.Tokens {
			if end > start && size >= minSection && breaks(doc, ws[end-1], ws[end]) {
				break
			}
			size += int(ws[end].tokens)
			end++
		}
		if end == start { // one word over the size: it is a chunk alone
			end++
			size = int(ws[start].tokens)
		}
		ch := Chunk{N: len(out), Page: page(ws[start]), Section: doc.Sections[ws[start].section].Section, Tokens: size}
		if last := page(ws[end-1]); last != ch.Page {
			ch.PageEnd = last
		}
		var b strings.Builder
		for _, w := range ws[start:end] {
			b.WriteString(doc.Sections[w.section].Text[w.start:w.end])
			if w.nl(doc) {
				b.WriteByte('\n')
			}
		}
		ch.Text = b.String()
		out = append(out, ch)
		if end >= len(ws) {
			break
		}
		// The next chunk starts Overlap tokens before this one's end,
		// but always after its start, and never across a heading break.
		next, back := end, 0
		for next > start+1 && back+int(ws[next-1].tokens) <= c.Overlap && ws[next-1].section == ws[end].section {
			next--
			back += int(ws[next].tokens)
		}
		if ws[end-1].section != ws[end].section {
			next = end
		}
		start = next
	}
	return out
}

// breaks says a chunk ends between a and b: a new page, or a new heading.
func breaks(doc Document, a, b word) bool {
	if a.section == b.section {
		return false
	}
	return doc.Sections[a.section].Page != doc.Sections[b.section].Page || doc.Sections[a.section].Section != doc.Sections[b.section].Section
}
