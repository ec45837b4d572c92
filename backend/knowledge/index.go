package knowledge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// textIndex is one assistant's BM25 index of chunks (bleve, scorch).
type textIndex struct{ bleve.Index }

// chunkDoc is a chunk as the index holds it.
type chunkDoc struct {
	Text    string  `json:"text"`
	File    string  `json:"file"`
	SHA     string  `json:"sha"`
	N       float64 `json:"n"`
	Page    float64 `json:"page"`
	PageEnd float64 `json:"page_end"`
	Section string  `json:"section"`
}

func newMapping() mapping.IndexMapping {
	m := bleve.NewIndexMapping()
	m.ScoringModel = index.BM25Scoring
	m.DefaultAnalyzer = en.AnalyzerName
	doc := bleve.NewDocumentMapping()
	// The text: bleve's standard analyzer (Unicode words, lower case,
	// English stop words, no stemming): on the Debian-manuals bench it
	// ranked better than the English stemmer (nDCG@10 0.79 against
	// 0.75), since manuals are full of option names and identifiers
	// that stemming mangles. Headings: the English analyzer.
	text := bleve.NewTextFieldMapping()
	text.Analyzer = standard.Name
	text.Store = true
	doc.AddFieldMappingsAt("text", text)
	sec := bleve.NewTextFieldMapping()
	sec.Analyzer = en.AnalyzerName
	sec.Store = true
	doc.AddFieldMappingsAt("section", sec)
	for _, k := range []string{"file", "sha"} {
		f := bleve.NewKeywordFieldMapping()
		f.Store = true
		doc.AddFieldMappingsAt(k, f)
	}
	for _, k := range []string{"n", "page", "page_end"} {
		f := bleve.NewNumericFieldMapping()
		f.Store = true
		f.Index = false
		doc.AddFieldMappingsAt(k, f)
	}
	m.DefaultMapping = doc
	return m
}

// openIndex opens the index at path, making it on first use.
func openIndex(path string) (*textIndex, error) {
	ix, err := bleve.Open(path)
	if errors.Is(err, bleve.ErrorIndexPathDoesNotExist) {
		ix, err = bleve.New(path, newMapping())
	}
	if err != nil {
		return nil, fmt.Errorf("open the knowledge index %s: %w", path, err)
	}
	return &textIndex{ix}, nil
}

func chunkID(sha string, n int) string { return sha + "/" + strconv.Itoa(n) }

// putBatch is how many chunks go into the index at once: bleve holds a
// batch's analysed documents in memory (a 2,000,000-token file in one
// batch took 625 MiB).
const putBatch = 256

// put indexes a file's chunks, putBatch at a time (replacing none: remove
// the file's old chunks first). A failed or stopped put (ctx ends, checked
// between batches) takes out what it put.
func (ix *textIndex) put(ctx context.Context, file, sha string, chunks []Chunk) error {
	for i := 0; i < len(chunks); i += putBatch {
		// A Stop between batches: the chunks put so far go with it.
		if err := ctx.Err(); err != nil {
			ix.drop(sha, i)
			return err
		}
		b := ix.NewBatch()
		for _, c := range chunks[i:min(i+putBatch, len(chunks))] {
			if err := b.Index(chunkID(sha, c.N), chunkDoc{Text: c.Text, File: file, SHA: sha, N: float64(c.N),
				Page: float64(c.Page), PageEnd: float64(c.PageEnd), Section: c.Section}); err != nil {
				ix.drop(sha, i)
				return err
			}
		}
		if err := ix.Batch(b); err != nil {
			ix.drop(sha, i+putBatch)
			return err
		}
	}
	return nil
}

// drop removes chunks 0…n-1 of the file with that hash.
func (ix *textIndex) drop(sha string, n int) error {
	b := ix.NewBatch()
	for i := 0; i < n; i++ {
		b.Delete(chunkID(sha, i))
	}
	return ix.Batch(b)
}

// hit is one ranked chunk.
type hit struct {
	ID    string
	Score float64
	Doc   chunkDoc
}

// search ranks chunks for q by BM25 over their text and section, only
// in the file with hash sha when it is set; top at most.
func (ix *textIndex) search(q, sha string, top int) ([]hit, error) {
	text := bleve.NewMatchQuery(q)
	text.SetField("text")
	sec := bleve.NewMatchQuery(q)
	sec.SetField("section")
	sec.SetBoost(0.5)
	var qq query.Query = bleve.NewDisjunctionQuery(text, sec)
	if sha != "" {
		f := bleve.NewTermQuery(sha)
		f.SetField("sha")
		qq = bleve.NewConjunctionQuery(qq, f)
	}
	return ix.run(qq, top)
}

// docs fetches chunks by id.
func (ix *textIndex) docs(ids []string) ([]hit, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return ix.run(bleve.NewDocIDQuery(ids), len(ids))
}

// texts returns the ids and texts (with their section) of a file's n chunks.
func (ix *textIndex) texts(sha string, n int) ([]string, []string, error) {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = chunkID(sha, i)
	}
	hits, err := ix.docs(ids)
	if err != nil {
		return nil, nil, err
	}
	outIDs, texts := make([]string, 0, len(hits)), make([]string, 0, len(hits))
	for _, h := range hits {
		outIDs, texts = append(outIDs, h.ID), append(texts, h.Doc.Section+"\n"+h.Doc.Text)
	}
	return outIDs, texts, nil
}

func (ix *textIndex) run(qq query.Query, top int) ([]hit, error) {
	req := bleve.NewSearchRequestOptions(qq, top, 0, false)
	req.Fields = []string{"*"}
	res, err := ix.Search(req)
	if err != nil {
		return nil, err
	}
	out := make([]hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		d := chunkDoc{}
		d.Text, _ = h.Fields["text"].(string)
		d.File, _ = h.Fields["file"].(string)
		d.SHA, _ = h.Fields["sha"].(string)
		d.Section, _ = h.Fields["section"].(string)
		d.N, _ = h.Fields["n"].(float64)
		d.Page, _ = h.Fields["page"].(float64)
		d.PageEnd, _ = h.Fields["page_end"].(float64)
		out = append(out, hit{ID: h.ID, Score: h.Score, Doc: d})
	}
	return out, nil
}

func removeIndex(path string) error {
	if err := os.RemoveAll(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
