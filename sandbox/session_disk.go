package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"rehome/backend/bytesize"
	"rehome/backend/ids"
)

// A session's disk: the files its cells made are kept under cells/NNNN/.
// A file a cell writes again with the same bytes (a notebook that rewrites
// its 60 MiB result at every step) is kept once: the later cell's copy
// becomes a hard link to the earlier one. And a session keeps at most
// MaxKeptBytes of distinct files; past that, a cell's files are refused
// with a note that says what to do.
//
// Across sessions too: each session of a folder of sessions (a data
// folder's sessions/) starts afresh — a conversation asked again from the
// terminal, a session that lost its state — and its cells make the same
// files again (8 asks, each writing the same 60 MB result, kept 481 MB).
// The folder keeps one link per content in .kept/ (named by SHA-256 and
// size); a file with bytes kept there becomes a link to them. A link no
// session names any more (its count is 1) is dropped when a session
// starts (sweepKept), so deleting the sessions frees the bytes.

// defaultSessionKeep is how many bytes of files a session keeps at most.
const defaultSessionKeep = 1 << 30

// keptFiles is what a session's folder holds, as one cell sees it.
type keptFiles struct {
	max int64
	// used is the size of the distinct files (by inode) under cells/.
	used int64
	// bySum finds a kept file by content (sha256 and size).
	bySum map[string]string
	// linked counts the bytes saved by links, for the cell's notes.
	linked  int64
	refused int
	// shared is the sessions folder's .kept/ ("" none).
	shared string
}

// keptDir is the folder of a sessions folder that holds one link per
// content its sessions keep.
const keptDir = ".kept"

// loadKept reads what the session's earlier cells keep.
func loadKept(dir string, max int64, cells []CellResult) *keptFiles {
	k := &keptFiles{max: max, bySum: map[string]string{}, shared: filepath.Join(filepath.Dir(dir), keptDir)}
	seen := map[[2]uint64]bool{}
	filepath.WalkDir(filepath.Join(dir, "cells"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		var st syscall.Stat_t
		if syscall.Lstat(p, &st) != nil {
			return nil
		}
		id := [2]uint64{uint64(st.Dev), st.Ino}
		if !seen[id] && filepath.Ext(p) != ".json" {
			seen[id] = true
			k.used += st.Size
		}
		return nil
	})
	for _, c := range cells {
		for _, f := range c.Files {
			if st, err := os.Lstat(f.Path); err == nil && st.Mode().IsRegular() && st.Size() == f.Size {
				k.bySum[contentKey(f.SHA256, f.Size)] = f.Path
			}
		}
	}
	return k
}

func contentKey(sum string, size int64) string { return sum + ":" + strconv.FormatInt(size, 10) }

// keep is the collector's decision on one saved file (collector.keep).
func (k *keptFiles) keep(f *File) string {
	key := contentKey(f.SHA256, f.Size)
	if old, ok := k.bySum[key]; ok && old != f.Path && sameBytes(old, f.Size) && relink(old, f.Path) {
		k.linked += f.Size
		return ""
	}
	shared := ""
	if k.shared != "" && ids.IsSHA256(f.SHA256) {
		shared = filepath.Join(k.shared, f.SHA256+"-"+strconv.FormatInt(f.Size, 10))
		if sameBytes(shared, f.Size) && relink(shared, f.Path) {
			// Another session's bytes: no new disk, but this session
			// counts them against its own cap as if new.
			k.linked += f.Size
			shared = ""
		}
	}
	defer func() {
		if shared != "" && os.MkdirAll(k.shared, 0o700) == nil {
			os.Link(f.Path, shared) // another process may have made it: fine
		}
	}()
	if k.used+f.Size > k.max {
		shared = ""
		k.refused++
		return fmt.Sprintf("not kept: this session keeps at most %s of files and holds %s already; save what you need from earlier cells and start a new session (or raise the session's limit)",
			bytesize.Format(k.max), bytesize.Format(k.used))
	}
	k.used += f.Size
	k.bySum[key] = f.Path
	return ""
}

// relink replaces p by a hard link to old (the same bytes).
func relink(old, p string) bool {
	tmp := p + ".rehome-link"
	if os.Link(old, tmp) != nil {
		return false
	}
	if os.Rename(tmp, p) != nil {
		os.Remove(tmp)
		return false
	}
	return true
}

// sweepKept drops the links of the sessions folder base's .kept/ that no
// session holds any more (link count 1): the bytes of deleted sessions.
func sweepKept(base string) int {
	dir := filepath.Join(base, keptDir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		var st syscall.Stat_t
		if syscall.Lstat(p, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Nlink <= 1 && os.Remove(p) == nil {
			n++
		}
	}
	return n
}

// sameBytes checks the kept file is still what it was (size; its content
// was hashed when saved, and no process but rehome writes there).
func sameBytes(p string, size int64) bool {
	st, err := os.Lstat(p)
	return err == nil && st.Mode().IsRegular() && st.Size() == size
}

// notes says what the session's disk cap and links did in a cell.
func (k *keptFiles) notes() []string {
	var out []string
	if k.linked > 0 {
		out = append(out, fmt.Sprintf("%s of this cell's files had the same bytes as files kept by earlier cells: they are kept once (linked), not copied again.", bytesize.Format(k.linked)))
	}
	if k.refused > 0 {
		out = append(out, fmt.Sprintf("%d file(s) were not kept: this session keeps at most %s of files (%s are kept). Save what you need and start a new session.", k.refused, bytesize.Format(k.max), bytesize.Format(k.used)))
	}
	return out
}
