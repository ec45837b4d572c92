package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"

	"rehome/backend/bytesize"
	"rehome/backend/ids"
)

// A session's versions of one file. A notebook that rewrites its 60 MB
// result with new bytes at every cell kept a copy per cell (481 MB after
// 8 cells, issue 29): the same bytes are kept once (session_disk.go), but
// new bytes are a new copy. A session keeps the keepVersions newest
// contents of each file its cells write (by its name under /mnt/data);
// when a cell keeps one more, the older cells' copies of the oldest are
// dropped, and their records list the file under "skipped", with the
// cell whose newer version replaced it. Plots are each cell's own output
// (plot-001.png of cell 3 is not plot-001.png of cell 4) and are never
// dropped; neither is a copy that shares its bytes with a version kept
// (a link costs no disk).

// keepVersions is how many contents of one file a session keeps.
const keepVersions = 2

// dropOldVersions drops the copies of files of earlier cells that cell
// (its files just saved) makes older than keepVersions, rewrites their
// records and returns what the cell's notes say ("" nothing dropped).
func dropOldVersions(dir string, cell *CellResult, earlier []CellResult) string {
	var freed int64
	var names []string
	for _, f := range cell.Files {
		if f.Kind == "plot" || f.Path == "" {
			continue
		}
		kept := map[string]bool{contentKey(f.SHA256, f.Size): true}
		// Newest first: the earlier cells' versions of this file.
		for i := len(earlier) - 1; i >= 0; i-- {
			c := &earlier[i]
			j := fileNamed(c.Files, f.Name)
			if j < 0 || c.Files[j].Kind == "plot" {
				continue
			}
			old := c.Files[j]
			key := contentKey(old.SHA256, old.Size)
			if kept[key] || len(kept) < keepVersions {
				kept[key] = true
				continue
			}
			if !dropCopy(dir, old) {
				continue
			}
			freed += old.Size
			c.Files = append(c.Files[:j:j], c.Files[j+1:]...)
			c.Skipped = append(c.Skipped, Skipped{Name: old.Name, Reason: fmt.Sprintf(
				"replaced: cell %d wrote newer bytes to %s, and a session keeps the %d newest versions of a file", cell.Cell, old.Name, keepVersions)})
			if err := writeJSON(filepath.Join(dir, "cells", fmt.Sprintf("%04d.json", c.Cell)), cellRecord(c)); err != nil {
				continue
			}
			names = appendOnce(names, old.Name)
		}
	}
	if freed == 0 {
		return ""
	}
	sort.Strings(names)
	return fmt.Sprintf("Older versions of %s (%s) from earlier cells were dropped: a session keeps the %d newest versions of each file it writes.",
		quoteList(names), bytesize.Format(freed), keepVersions)
}

// dropCopy removes an earlier cell's copy of a file, and the sessions
// folder's shared link to its bytes once no session holds them (so the
// disk is freed now, not at the next session's sweep). It removes only a
// file under the session's own cells/.
func dropCopy(dir string, f File) bool {
	cells := filepath.Join(dir, "cells") + string(filepath.Separator)
	p := filepath.Clean(f.Path)
	if len(p) <= len(cells) || p[:len(cells)] != cells {
		return false
	}
	if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() || os.Remove(p) != nil {
		return false
	}
	if ids.IsSHA256(f.SHA256) {
		shared := filepath.Join(filepath.Dir(dir), keptDir, f.SHA256+"-"+strconv.FormatInt(f.Size, 10))
		var st syscall.Stat_t
		if syscall.Lstat(shared, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Nlink <= 1 {
			os.Remove(shared)
		}
	}
	return true
}

func fileNamed(files []File, name string) int {
	for i, f := range files {
		if f.Name == name {
			return i
		}
	}
	return -1
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func quoteList(names []string) string {
	if len(names) > 3 {
		return fmt.Sprintf("%s and %d more", quoteList(names[:3]), len(names)-3)
	}
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(n)
	}
	return out
}
