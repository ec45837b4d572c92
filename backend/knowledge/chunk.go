package knowledge

import (
	"regexp"
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

var piece = regexp.MustCompile(`\S+\s*`)

type word struct {
	s       string
	tokens  int
	page    int
	section int // index into the sections
}

// Split cuts a document into chunks of about c.Tokens tokens, each
// sharing c.Overlap tokens with the one before, on word boundaries. A
// new heading or a new page starts a new chunk (once the current one
// holds minSection tokens), so that a citation's page and section say
// where its text is.
func Split(doc Document, c Chunking) []Chunk {
	c = c.WithDefaults()
	var words []word
	for i, s := range doc.Sections {
		ws := piece.FindAllString(s.Text, -1)
		for j, w := range ws {
			if j == len(ws)-1 && strings.TrimRight(w, " \t\r\n") == w {
				w += "\n" // sections do not run into each other
			}
			words = append(words, word{s: w, tokens: max(llm.EstimateTokens(w), 1), page: s.Page, section: i})
		}
	}
	var out []Chunk
	start := 0
	for start < len(words) {
		end, size := start, 0
		for end < len(words) && size+words[end].tokens <= c.Tokens {
			if end > start && size >= minSection && breaks(doc, words[end-1], words[end]) {
				break
			}
			size += words[end].tokens
			end++
		}
		if end == start { // one word over the size: it is a chunk alone
			end++
			size = words[start].tokens
		}
		ch := Chunk{N: len(out), Page: words[start].page, Section: doc.Sections[words[start].section].Section, Tokens: size}
		if last := words[end-1].page; last != ch.Page {
			ch.PageEnd = last
		}
		var b []byte
		for _, w := range words[start:end] {
			b = append(b, w.s...)
		}
		ch.Text = string(b)
		out = append(out, ch)
		if end >= len(words) {
			break
		}
		// The next chunk starts Overlap tokens before this one's end,
		// but always after its start, and never across a heading break.
		next, back := end, 0
		for next > start+1 && back+words[next-1].tokens <= c.Overlap && words[next-1].section == words[end].section {
			next--
			back += words[next].tokens
		}
		if words[end-1].section != words[end].section {
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
	return a.page != b.page || doc.Sections[a.section].Section != doc.Sections[b.section].Section
}
