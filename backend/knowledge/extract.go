package knowledge

import (
	"context"
	"os"
)

// Extract reads the file at path, named name (its extension says the
// format), as the knowledge does: HTML, PDF and Office files inside the
// sandbox, plain text on the host. Browsing extracts the text of a web
// page or a library's article with it.
func (s *Service) Extract(ctx context.Context, path, name string) (Document, error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil { // the parse's output folder is made in it
		return Document{}, err
	}
	return s.parse(ctx, path, name)
}
