package knowledge

import (
	"context"
	"os"
)

// Helpers the bench (package knowledge_test) reaches in with.

// ChunkDoc is an indexed chunk, for the bench.
type ChunkDoc struct {
	File, SHA, Text, Section string
	N, Page                  int
}

// Chunks returns every indexed chunk of the assistant.
func (s *Service) Chunks(id string) ([]ChunkDoc, error) {
	m, dir, err := s.load(id)
	if err != nil {
		return nil, err
	}
	ix, err := s.index(id, dir)
	if err != nil {
		return nil, err
	}
	var out []ChunkDoc
	for _, f := range m.Files {
		ids := make([]string, f.Chunks)
		for i := range ids {
			ids[i] = chunkID(f.SHA256, i)
		}
		hits, err := ix.docs(ids)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			out = append(out, ChunkDoc{File: h.Doc.File, SHA: h.Doc.SHA, Text: h.Doc.Text, Section: h.Doc.Section, N: int(h.Doc.N), Page: int(h.Doc.Page)})
		}
	}
	return out, nil
}

// IndexChunks indexes docs into a new index at path (index alone, no
// parsing), file by file in one batch each.
func IndexChunks(path string, docs []ChunkDoc) error {
	ix, err := openIndex(path)
	if err != nil {
		return err
	}
	defer ix.Close()
	by := map[string][]Chunk{}
	file := map[string]string{}
	for _, d := range docs {
		by[d.SHA] = append(by[d.SHA], Chunk{N: d.N, Page: d.Page, Section: d.Section, Text: d.Text})
		file[d.SHA] = d.File
	}
	for sha, cs := range by {
		if err := ix.put(context.Background(), file[sha], sha, cs); err != nil {
			return err
		}
	}
	return nil
}

// ReadInSandbox is a file's text as the sandbox's parser reads it, before
// rehome drops a PDF's running heads and feet.
func (s *Service) ReadInSandbox(ctx context.Context, path, name string) (Document, error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return Document{}, err
	}
	return s.parseInSandbox(ctx, path, FormatOf(name))
}
