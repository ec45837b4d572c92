package knowledge

import "testing"

// A file's counts read as the UI writes numbers: "about 213,583 tokens"
// beside "8,192", not "about 213583 tokens".
func TestCountsGroupThousands(t *testing.T) {
	f := File{Format: "pdf", Pages: 1204, Chunks: 1530, Tokens: 213583}
	if got, want := f.Counts(), "1,204 pages, 1,530 chunks, about 213,583 tokens"; got != want {
		t.Fatalf("Counts() = %q, want %q", got, want)
	}
	f = File{Format: "pptx", Pages: 3, Chunks: 4, Tokens: 999}
	if got, want := f.Counts(), "3 slides, 4 chunks, about 999 tokens"; got != want {
		t.Fatalf("Counts() = %q, want %q", got, want)
	}
}
