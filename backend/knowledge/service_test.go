package knowledge

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const guideMD = `# Care guide

Keep the kettle dry.

## Descaling

Descale the kettle every four weeks with citric acid; hard water needs it every two weeks.

## Warranty

The warranty lasts two years from the date of purchase. Batteries are covered for six months.
`

// Text files index on the host with their headings; the same bytes
// again do nothing; a changed file re-indexes alone; remove takes its
// chunks and its copy.
func TestAddSearchReindexRemove(t *testing.T) {
	src, data := t.TempDir(), t.TempDir()
	s := New(data, Options{})
	defer s.Close()
	ctx := context.Background()
	guide := write(t, src, "guide.md", guideMD)
	notes := write(t, src, "notes.txt", "The descaling tablets are in the drawer under the sink.\n")
	var steps []Progress
	res, err := s.Add(ctx, "a1", []string{guide, notes}, func(p Progress) { steps = append(steps, p) })
	if err != nil || len(res) != 2 || res[0].Action != "indexed" || res[1].Action != "indexed" {
		t.Fatalf("add: %+v %v", res, err)
	}
	if len(steps) < 6 || steps[len(steps)-1].Stage != "done" || steps[len(steps)-1].Index != 2 || steps[0].Total != 2 {
		t.Errorf("progress %+v", steps)
	}
	hits, err := s.Search(ctx, "a1", "how long is the warranty", "", 5)
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %v %v", hits, err)
	}
	if hits[0].File != "guide.md" || !strings.Contains(hits[0].Section, "Warranty") || !strings.Contains(hits[0].Text, "two years") {
		t.Fatalf("top hit %+v", hits[0])
	}
	// A file name narrows the search.
	if hits, err := s.Search(ctx, "a1", "descaling", "notes", 5); err != nil || len(hits) != 1 || hits[0].File != "notes.txt" {
		t.Fatalf("search in notes: %+v %v", hits, err)
	}
	if _, err := s.Search(ctx, "a1", "x", "nope.pdf", 5); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "guide.md, notes.txt") {
		t.Errorf("unknown file: %v", err)
	}
	// The same bytes again: nothing.
	res, err = s.Add(ctx, "a1", []string{guide}, nil)
	if err != nil || res[0].Action != "unchanged" {
		t.Fatalf("again: %+v %v", res, err)
	}
	// The original moves: the assistant keeps answering from its copy.
	os.Remove(guide)
	if hits, _ := s.Search(ctx, "a1", "warranty", "", 5); len(hits) == 0 || hits[0].File != "guide.md" {
		t.Fatalf("after the original moved: %+v", hits)
	}
	// A changed file re-indexes alone; its old passages are gone.
	guide = write(t, src, "guide.md", strings.Replace(guideMD, "two years", "three years", 1))
	oldSHA := res[0].SHA256
	res, err = s.Add(ctx, "a1", []string{guide}, nil)
	if err != nil || res[0].Action != "reindexed" {
		t.Fatalf("changed: %+v %v", res, err)
	}
	hits, _ = s.Search(ctx, "a1", "warranty years", "", 10)
	for _, h := range hits {
		if strings.Contains(h.Text, "two years") {
			t.Errorf("an old passage is still found: %+v", h)
		}
	}
	if _, err := os.Stat(filepath.Join(data, oldSHA)); !os.IsNotExist(err) {
		t.Errorf("the old copy is still there: %v", err)
	}
	files, _ := s.List("a1")
	if len(files) != 2 || files[0].Name != "guide.md" || files[0].Chunks == 0 || files[0].State != StateIndexed {
		t.Fatalf("list %+v", files)
	}
	if _, err := s.Remove("a1", "guide.md"); err != nil {
		t.Fatal(err)
	}
	if hits, _ := s.Search(ctx, "a1", "warranty", "", 5); len(hits) != 0 {
		t.Errorf("removed file still found: %+v", hits)
	}
	if _, err := os.Stat(files[0].Path); !os.IsNotExist(err) {
		t.Errorf("removed file's copy is still there")
	}
	if _, err := s.Remove("a1", "guide.md"); !errors.Is(err, ErrNotFound) {
		t.Errorf("remove twice: %v", err)
	}
}

// Bad files get their reason in words; the others still index.
func TestBadFilesGetTheirReason(t *testing.T) {
	src := t.TempDir()
	s := New(t.TempDir(), Options{}) // no sandbox
	defer s.Close()
	good := write(t, src, "good.txt", "The answer is forty-two.")
	bin := write(t, src, "fake.txt", "PK\x03\x04\x00\x00binary")
	empty := write(t, src, "empty.md", "  \n")
	badJSON := write(t, src, "data.json", "{not json")
	exe := write(t, src, "tool.exe", "MZ")
	pdf := write(t, src, "manual.pdf", "%PDF-1.7")
	big := filepath.Join(src, "huge.txt")
	f, _ := os.Create(big)
	f.Truncate(MaxFileBytes + 1) // sparse: no disk used
	f.Close()
	res, err := s.Add(context.Background(), "a1", []string{bin, good, empty, badJSON, exe, pdf, big}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		err   error
		words string
	}{
		{ErrNotFormat, "binary bytes"}, {nil, ""}, {ErrNoText, "empty"}, {ErrNotFormat, "not JSON"},
		{ErrUnsupported, ".exe"}, {ErrNoSandbox, "sandbox"}, {ErrTooLarge, "over 512 MB"},
	}
	for i, w := range want {
		r := res[i]
		if w.err == nil {
			if r.State != StateIndexed {
				t.Errorf("%s: %+v", r.Name, r)
			}
			continue
		}
		if r.State != StateFailed || !strings.Contains(r.Reason, w.words) || !strings.Contains(r.Message, "not indexed") {
			t.Errorf("%s: %q (%s), want %q", r.Name, r.Reason, r.State, w.words)
		}
	}
	if hits, _ := s.Search(context.Background(), "a1", "answer", "", 5); len(hits) != 1 {
		t.Errorf("the good file is not found: %+v", hits)
	}
}

// Cancelling stops between files; what was indexed stays.
func TestAddCancelled(t *testing.T) {
	src := t.TempDir()
	s := New(t.TempDir(), Options{})
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	a := write(t, src, "a.txt", "alpha text")
	b := write(t, src, "b.txt", "beta text")
	res, err := s.Add(ctx, "a1", []string{a, b}, func(p Progress) {
		if p.Stage == "done" && p.Index == 1 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || len(res) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	files, _ := s.List("a1")
	if len(files) != 1 || files[0].Name != "a.txt" {
		t.Fatalf("kept %+v", files)
	}
}

func TestSplit(t *testing.T) {
	var words []string
	for i := 0; i < 3000; i++ {
		words = append(words, "word")
	}
	doc := Document{Sections: []Section{{Page: 1, Text: strings.Join(words[:1500], " ")}, {Page: 2, Text: strings.Join(words[1500:], " ")}}}
	cs := Split(doc, Chunking{})
	// "word " is 5 bytes = 2 tokens: 6,000 tokens in chunks of 800 with
	// 400 shared: about 14 chunks.
	if len(cs) < 13 || len(cs) > 16 {
		t.Fatalf("%d chunks", len(cs))
	}
	for i, c := range cs {
		if c.Tokens > 800 {
			t.Errorf("chunk %d has %d tokens", i, c.Tokens)
		}
	}
	if cs[0].Page != 1 || cs[len(cs)-1].Page != 2 {
		t.Errorf("pages %d…%d", cs[0].Page, cs[len(cs)-1].Page)
	}
	for _, c := range cs {
		if c.PageEnd != 0 {
			t.Errorf("chunk %d spans pages %d–%d: a full page ends a chunk", c.N, c.Page, c.PageEnd)
		}
	}
	// Pages too short for a chunk of their own share one, and say so.
	short := Split(Document{Sections: []Section{{Page: 1, Text: "one"}, {Page: 2, Text: "two"}}}, Chunking{})
	if len(short) != 1 || short[0].Page != 1 || short[0].PageEnd != 2 || short[0].Text != "one\ntwo\n" {
		t.Errorf("short pages: %+v", short)
	}
	// Overlap: the second chunk starts inside the first.
	if !strings.HasPrefix(cs[0].Text[len(cs[0].Text)/2:], cs[1].Text[:20]) && !strings.Contains(cs[0].Text, cs[1].Text[:40]) {
		t.Errorf("no overlap between chunks 0 and 1")
	}
	// A configured size.
	if small := Split(doc, Chunking{Tokens: 100, Overlap: 10}); len(small) < 60 {
		t.Errorf("%d chunks of 100 tokens", len(small))
	}
}

func TestMarkdownHeadings(t *testing.T) {
	ss := markdownSections(guideMD + "\n```\n# not a heading\n```\n")
	var got []string
	for _, s := range ss {
		got = append(got, s.Section)
	}
	if strings.Join(got, "|") != "Care guide|Care guide › Descaling|Care guide › Warranty" {
		t.Fatalf("sections %q", got)
	}
}

func TestCSVStaysATable(t *testing.T) {
	doc, err := parseText(write(t, t.TempDir(), "t.csv", "region,revenue\nNorth,10\nSouth,\"1,5\"\n"), "csv")
	if err != nil || !strings.Contains(doc.Sections[0].Text, "region | revenue\nNorth | 10\nSouth | 1,5") {
		t.Fatalf("%+v %v", doc, err)
	}
}

// TestAddStoppedKeepsNoCopy: an add stopped while it reads a file keeps
// nothing of that file — not listed, and no library copy of its bytes
// left behind for no one — while the file done before stays, copy and
// all.
func TestAddStoppedKeepsNoCopy(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	s := New(dir, Options{})
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	a := write(t, src, "a.txt", "alpha text")
	b := write(t, src, "b.txt", "beta text, stopped while it is read")
	res, err := s.Add(ctx, "a1", []string{a, b}, func(p Progress) {
		if p.Index == 2 && p.Stage == "reading" {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || len(res) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	files, _ := s.List("a1")
	if len(files) != 1 || files[0].Name != "a.txt" {
		t.Fatalf("kept %+v", files)
	}
	sumB := fmt.Sprintf("%x", sha256.Sum256([]byte("beta text, stopped while it is read")))
	if _, err := os.Stat(filepath.Join(dir, sumB)); !os.IsNotExist(err) {
		t.Fatalf("the stopped file's library copy stayed (%v)", err)
	}
	if _, err := os.Stat(files[0].Path); err != nil {
		t.Fatalf("the done file's copy went: %v", err)
	}
}

// TestAddStoppedWhileIndexing: a Stop while a long file's chunks go into
// the index stops there (it ran to the end and said "indexed": the
// knowledge e2e's Stop of a 7 MB text file under load) and keeps nothing
// of it: not listed, no chunk found, no library copy.
func TestAddStoppedWhileIndexing(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	s := New(dir, Options{})
	defer s.Close()
	var b strings.Builder
	for i := 0; i < 6000; i++ {
		fmt.Fprintf(&b, "Note %d: the pump %d in hall %d was checked and its seal replaced.\n", i, i%97, i%13)
	}
	big := write(t, src, "big.txt", b.String())
	ctx, cancel := context.WithCancel(context.Background())
	res, err := s.Add(ctx, "a1", []string{big}, func(p Progress) {
		if p.Stage == "indexing" {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || len(res) != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if files, _ := s.List("a1"); len(files) != 0 {
		t.Fatalf("kept %+v", files)
	}
	if hits, _ := s.Search(context.Background(), "a1", "pump seal", "", 5); len(hits) != 0 {
		t.Fatalf("chunks of the stopped file are found: %d", len(hits))
	}
	if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("%x", sha256.Sum256([]byte(b.String()))))); !os.IsNotExist(err) {
		t.Fatalf("the stopped file's library copy stayed (%v)", err)
	}
}
