package llm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A conversation's notebook export embeds the plots its cells made (the
// model's code: outside bytes) up to 64 MiB together and 8 MiB each, and
// names the rest with their files. On 2e30bb1 all of them went in: 20
// plots of 7 MiB and one of 9 MiB were 189 MiB of base64 built in memory.
func TestConversationNotebookBoundsItsPlots(t *testing.T) {
	dir := t.TempDir()
	plot := func(name string, size int64) OutFile {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("\x89PNG\r\n\x1a\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Truncate(p, size)
		return OutFile{Name: name, Kind: "plot", Size: size, Path: p}
	}
	var cells []Cell
	for i := 1; i <= 20; i++ {
		cells = append(cells, Cell{Code: "plt.plot(x)", Result: CellResult{Files: []OutFile{plot(fmt.Sprintf("p%d.png", i), 7<<20)}}})
	}
	huge := plot("huge.png", 9<<20)
	cells = append(cells, Cell{Code: "plt.show()", Result: CellResult{Files: []OutFile{huge}}})
	c := NewConversation()
	c.Add(&Transcript{Question: "Plot it", Answer: "Done.", Stopped: StopAnswered, Turns: []Turn{{Cells: cells}, {Text: "Done."}}})
	nb, err := c.Notebook()
	if err != nil {
		t.Fatal(err)
	}
	if max := int64(9*7<<20)*4/3 + 1<<20; int64(len(nb)) > max {
		t.Fatalf("the notebook is %d bytes, more than its embedded plots allow (%d)", len(nb), max)
	}
	s := string(nb)
	if n := strings.Count(s, "is past the 64 MiB of plots one notebook embeds"); n != 11 {
		t.Fatalf("%d plots named as past the bound, want 11", n)
	}
	if !strings.Contains(s, "the plot huge.png (9 MiB) is larger than a notebook embeds (8 MiB): its file is "+huge.Path) {
		t.Fatal("the 9 MiB plot is not named with its file")
	}
	t.Logf("21 cells, 149 MiB of plots: a notebook of %d MiB", len(nb)>>20)
}
