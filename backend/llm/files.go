package llm

import (
	"fmt"
	"path/filepath"
	"strings"

	"rehome/backend/bytesize"
	"rehome/backend/dataset"
)

// FileInfo describes a file the code can read, for the model.
type FileInfo struct {
	Name string `json:"name"`
	// HostPath is where it is on this machine; Path where the code sees it.
	HostPath string `json:"host_path"`
	Path     string `json:"path"`
	Size     int64  `json:"size"`
	Format   string `json:"format,omitempty"`
	Rows     int64  `json:"rows,omitempty"`
	RowsKind string `json:"rows_kind,omitempty"`
	Sheet    string `json:"sheet,omitempty"`
	// Columns are "name (type)" from the preview.
	Columns []string `json:"columns,omitempty"`
	Note    string   `json:"note,omitempty"`
}

// DescribeFile previews the file at hostPath (the same preview the Code
// Interpreter screen shows) for the model.
func DescribeFile(hostPath string) (FileInfo, error) {
	p, err := dataset.Peek(hostPath, dataset.Options{MaxRows: 5})
	if err != nil {
		return FileInfo{}, err
	}
	fi := FileInfo{Name: p.Name, HostPath: hostPath, Path: "/mnt/data/" + filepath.Base(hostPath),
		Size: p.Size, Format: string(p.Format), Rows: p.RowCount, RowsKind: p.RowCountKind, Sheet: p.Sheet}
	if p.Format == dataset.Text || p.Format == dataset.Binary {
		// Not a table (a PDF, a document, notes among the knowledge
		// files): its name and size only, its kind from its extension.
		if ext := strings.TrimPrefix(filepath.Ext(hostPath), "."); ext != "" {
			fi.Format = strings.ToLower(ext)
		}
		fi.Rows, fi.RowsKind = 0, ""
		return fi, nil
	}
	for i, c := range p.Columns {
		if i == 60 {
			fi.Columns = append(fi.Columns, fmt.Sprintf("… %d more", len(p.Columns)-60))
			break
		}
		fi.Columns = append(fi.Columns, fmt.Sprintf("%s (%s)", c.Name, c.Type))
	}
	if len(p.Problems) > 0 {
		fi.Note = p.Problems[0]
	}
	return fi, nil
}

// Describe is the file in one line of the system prompt.
func (f FileInfo) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s", f.Path, bytesize.Format(f.Size))
	if f.Format != "" {
		fmt.Fprintf(&b, ", %s", strings.ToUpper(f.Format))
	}
	if f.Rows > 0 {
		switch f.RowsKind {
		case dataset.CountEstimate:
			fmt.Fprintf(&b, ", about %d rows", f.Rows)
		case dataset.CountAtLeast:
			fmt.Fprintf(&b, ", at least %d rows", f.Rows)
		default:
			fmt.Fprintf(&b, ", %d rows", f.Rows)
		}
	}
	if f.Sheet != "" {
		fmt.Fprintf(&b, ", sheet %q", f.Sheet)
	}
	b.WriteString(")")
	if len(f.Columns) > 0 {
		b.WriteString("; columns: ")
		b.WriteString(strings.Join(f.Columns, ", "))
	}
	if f.Note != "" {
		b.WriteString(". Note: ")
		b.WriteString(f.Note)
	}
	return b.String()
}

// DescribeFiles previews each file for the model, in order: the same file
// given twice is kept once, and a file whose name is taken already (two
// files cannot both be /mnt/data/<name>) is left out with a note saying
// so. A file that cannot be read is an error.
func DescribeFiles(hostPaths []string) ([]FileInfo, []string, error) {
	out := []FileInfo{}
	var notes []string
	byName := map[string]string{}
	for _, p := range hostPaths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, nil, err
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		name := filepath.Base(abs)
		if other, ok := byName[name]; ok {
			if other != abs {
				notes = append(notes, fmt.Sprintf("%s is left out: %s is at /mnt/data/%s already (rename one to give both)", p, other, name))
			}
			continue
		}
		fi, err := DescribeFile(abs)
		if err != nil {
			return nil, nil, err
		}
		byName[name] = abs
		out = append(out, fi)
	}
	return out, notes, nil
}

// HostPaths are the files' paths on this machine.
func HostPaths(files []FileInfo) []string {
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, f.HostPath)
	}
	return out
}
