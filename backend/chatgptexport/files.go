package chatgptexport

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"rehome/backend/atomicfile"
	"rehome/backend/bytesize"
	"rehome/backend/llm"
)

// Files says what SaveFiles took from the zip.
type Files struct {
	Saved   int
	Bytes   int64
	Missing int      // pointed at, not in the export (a JSON import, a file ChatGPT did not export)
	Refused []string // over a bound, in words
}

// SaveFiles copies the files a conversation points at from the zip into
// dir (made as needed), each bounded by MaxFileBytes and all of one
// import by *budget, and points the conversation at them. A file that is
// not there, or over its bound, keeps its name with no path and is said so
// in its note. Nothing is written when the export is not a zip.
func (e *Export) SaveFiles(cv *Converted, dir string, budget *int64) (Files, error) {
	var res Files
	paths := map[string]string{}
	for _, id := range cv.Assets {
		zf := e.files[id]
		if zf == nil {
			res.Missing++
			continue
		}
		if int64(zf.UncompressedSize64) > e.lim.MaxFileBytes || int64(zf.UncompressedSize64) > *budget {
			res.Refused = append(res.Refused, fmt.Sprintf("%s (%s) is over the %s rehome takes of one file, or of one import's files", path.Base(zf.Name),
				bytesize.Format(int64(zf.UncompressedSize64)), bytesize.Format(min(e.lim.MaxFileBytes, *budget))))
			continue
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return res, fmt.Errorf("make the conversation's folder: %w", err)
		}
		dst := filepath.Join(dir, localName(path.Base(zf.Name)))
		n, err := e.copyFile(zf, dst)
		if err != nil {
			if strings.Contains(err.Error(), ErrUnsafeZip.Error()) {
				return res, err
			}
			res.Refused = append(res.Refused, fmt.Sprintf("%s: %v", path.Base(zf.Name), err))
			continue
		}
		*budget -= n
		res.Saved++
		res.Bytes += n
		paths[id] = dst
	}
	relink(cv.Conversation, paths, e.files)
	if res.Missing > 0 {
		cv.Conversation.Notes = append(cv.Conversation.Notes, counted(res.Missing, "file", "files")+" it points at were not in the export")
	}
	for _, r := range res.Refused {
		cv.Conversation.Notes = append(cv.Conversation.Notes, "not copied: "+r)
	}
	return res, nil
}

// copyFile writes one entry, reading at most its bound and refusing an
// entry that expands as a zip bomb does.
func (e *Export) copyFile(zf interface {
	Open() (io.ReadCloser, error)
}, dst string) (int64, error) {
	rc, err := zf.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	var n int64
	err = atomicfile.Write(dst, 0o600, func(w io.Writer) error {
		var err error
		n, err = io.Copy(w, io.LimitReader(rc, e.lim.MaxFileBytes+1))
		if err == nil && n > e.lim.MaxFileBytes {
			err = fmt.Errorf("%w: it expands past the %s its entry declares", ErrUnsafeZip, bytesize.Format(e.lim.MaxFileBytes))
		}
		return err
	})
	return n, err
}

// localName is a file name safe to write in a folder of rehome's.
func localName(base string) string {
	base = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r < ' ' {
			return '_'
		}
		return r
	}, base)
	if base == "" || base == "." || base == ".." {
		base = "file"
	}
	if r := []rune(base); len(r) > 120 {
		ext := filepath.Ext(base)
		base = string(r[:100]) + ext
	}
	return base
}

// relink points every file of the conversation at where it was saved,
// named as the export names it; one not saved keeps no path.
func relink(c *llm.Conversation, paths map[string]string, zipped map[string]*zipFile) {
	fix := func(name, p *string) {
		id, ok := strings.CutPrefix(*p, assetPrefix)
		if !ok {
			return
		}
		*p = paths[id]
		if zf := zipped[id]; zf != nil && *name == id {
			*name = path.Base(zf.Name)
		}
	}
	ex := func(ts []llm.Transcript) {
		for i := range ts {
			t := &ts[i]
			for j := range t.Files {
				fix(&t.Files[j].Name, &t.Files[j].Path)
			}
			for j := range t.Attachments {
				fix(&t.Attachments[j].Name, &t.Attachments[j].Path)
			}
			for k := range t.Turns {
				for l := range t.Turns[k].Cells {
					fs := t.Turns[k].Cells[l].Result.Files
					for m := range fs {
						fix(&fs[m].Name, &fs[m].Path)
					}
				}
			}
		}
	}
	ex(c.Exchanges)
	for i := range c.Alternatives {
		ex(c.Alternatives[i].Exchanges)
	}
}

// Unlinked marks the files of a conversation read from a bare
// conversations.json (no zip, so no files): each keeps its name and no
// path, and its note says where they are.
func Unlinked(cv *Converted) {
	relink(cv.Conversation, nil, nil)
	cv.Conversation.Notes = append(cv.Conversation.Notes, counted(len(cv.Assets), "file", "files")+" it points at are in the export's .zip, not in conversations.json: import the .zip to bring them")
}

// counted says "1 file", "3 files": a count in words, not "file(s)".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
