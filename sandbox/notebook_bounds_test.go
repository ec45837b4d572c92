package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A session's code can make plots of any number: a notebook export,
// written whole with its plots inside, embeds at most 64 MiB of them and
// none over 8 MiB, and names the rest with where their files are. On
// 2e30bb1, 20 plots of 7 MiB and one of 9 MiB all went in (189 MiB of
// base64 built in memory, the JSON a second time).
func TestNotebookExportBoundsItsPlots(t *testing.T) {
	dir := t.TempDir()
	plot := func(name string, size int64) File {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("\x89PNG\r\n\x1a\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Truncate(p, size)
		return File{Name: "plot-001.png", Kind: "plot", Size: size, Path: p}
	}
	var cells []CellResult
	for i := 1; i <= 20; i++ {
		cells = append(cells, CellResult{Cell: i, Code: "plt.plot(x)", Status: "ok", Result: Result{Files: []File{plot(fmt.Sprintf("p%d.png", i), 7<<20)}}})
	}
	huge := plot("huge.png", 9<<20)
	cells = append(cells, CellResult{Cell: 21, Code: "plt.show()", Status: "ok", Result: Result{Files: []File{huge}, Displays: []Display{{Kind: "image", File: huge.Name}}}})
	var out bytes.Buffer
	if err := WriteNotebook(&out, cells); err != nil {
		t.Fatal(err)
	}
	embedded := int64(9) * 7 << 20 // 9 plots of 7 MiB fit in 64 MiB
	if max := embedded*4/3 + 1<<20; int64(out.Len()) > max {
		t.Fatalf("the notebook is %d bytes, more than its embedded plots allow (%d)", out.Len(), max)
	}
	s := out.String()
	if n := strings.Count(s, "is past the 64 MiB of plots one notebook embeds"); n != 11 {
		t.Fatalf("%d plots named as past the bound, want 11", n)
	}
	if !strings.Contains(s, "is larger than a notebook embeds (8 MiB): its file is "+huge.Path) {
		t.Fatal("the 9 MiB plot is not named with its file")
	}
	t.Logf("notebook of 21 cells, 149 MiB of plots: %d MiB written", out.Len()>>20)
}
