package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rehome/backend/progressio"
)

// Format names what a file holds.
type Format string

// The formats a preview tells apart.
const (
	CSV     Format = "csv"     // comma-, semicolon- or pipe-separated text
	TSV     Format = "tsv"     // tab-separated text
	JSON    Format = "json"    // one JSON document (an array of records, or an object)
	JSONL   Format = "jsonl"   // one JSON record a line
	XLSX    Format = "xlsx"    // Excel workbook (Office Open XML)
	Parquet Format = "parquet" // Apache Parquet
	Text    Format = "text"    // text that is not a table
	Binary  Format = "binary"  // anything else
)

// RowCount kinds: how far RowCount can be trusted.
const (
	CountExact    = "exact"    // every row was counted
	CountEstimate = "estimate" // extrapolated from the head's bytes per row
	CountAtLeast  = "at_least" // the rows seen; the total is unknown (compressed input)
)

// Preview is what a user sees the moment a file is dropped.
type Preview struct {
	Name        string    `json:"name"`
	Path        string    `json:"path"`
	Size        int64     `json:"size"`
	Modified    time.Time `json:"modified"`
	Format      Format    `json:"format"`
	Compression string    `json:"compression,omitempty"` // "gzip" for .gz files
	// Delimiter is the field separator of CSV/TSV files (",", ";", "\t", "|").
	Delimiter string `json:"delimiter,omitempty"`
	// Encoding is the text encoding: "utf-8", "utf-8-sig" (with a byte
	// order mark) or "cp1252" (Windows Western, read when the bytes are
	// not UTF-8). The names are Python's, so code can pass them on.
	Encoding string `json:"encoding,omitempty"`
	// Header reports whether the first row names the columns.
	Header bool `json:"header"`
	// Sheet is the worksheet shown for workbooks (the first one).
	Sheet   string     `json:"sheet,omitempty"`
	Sheets  []string   `json:"sheets,omitempty"`
	Columns []Column   `json:"columns"`
	Rows    [][]string `json:"rows"`
	// RowCount is the number of data rows (without the header), as
	// RowCountKind says: exact, estimated, or at least this many.
	RowCount     int64  `json:"row_count"`
	RowCountKind string `json:"row_count_kind"`
	// Problems are what is wrong with the file, in plain words.
	Problems []string `json:"problems"`
	// Note says what the preview could not do and what to do instead.
	Note string `json:"note,omitempty"`
	// ReadBytes is how many bytes of the file the preview read.
	ReadBytes int64 `json:"read_bytes"`
}

// Column describes one column from the rows sampled.
type Column struct {
	Name string `json:"name"`
	Type Type   `json:"type"`
	// Empty counts sampled cells that were empty or a missing-value marker
	// (NA, N/A, null, NaN, None, -).
	Empty int `json:"empty"`
}

// Options bound the work of a preview. Zero values take the defaults.
type Options struct {
	MaxRows  int   // rows returned; default 20, at most 1000
	MaxBytes int64 // head bytes read at first; default 1 MiB, grown up to 8 MiB for very long rows
}

// Defaults and caps of Options.
const (
	DefaultRows  = 20
	MaxRowsCap   = 1000
	DefaultBytes = 1 << 20
	MaxBytesCap  = 8 << 20
	sampleRows   = 2000 // rows used to infer column types
	maxCellRunes = 200  // longer cells are cut in Rows (marked with …)
	maxColumns   = 500  // wider tables show their first columns
)

// Peek previews the file at path. It fails only when the file cannot be
// read at all; a file that is malformed still gets a Preview whose
// Problems say what is wrong.
func Peek(path string, o Options) (Preview, error) {
	o = o.normalize()
	f, err := os.Open(path)
	if err != nil {
		switch {
		case errors.Is(err, os.ErrNotExist):
			return Preview{}, fmt.Errorf("%s does not exist (was it moved or deleted?)", path)
		case errors.Is(err, os.ErrPermission):
			return Preview{}, fmt.Errorf("rehome may not read %s: check the file's permissions", path)
		}
		return Preview{}, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Preview{}, fmt.Errorf("read %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		what := "not a regular file"
		if st.IsDir() {
			what = "a folder"
		}
		return Preview{}, fmt.Errorf("%s is %s: %w (pick one data file such as a .csv)", path, what, ErrNotFile)
	}
	p := Preview{
		Name:     filepath.Base(path),
		Path:     path,
		Size:     st.Size(),
		Modified: st.ModTime().UTC(),
		Rows:     [][]string{},
		Columns:  []Column{},
		Problems: []string{},
	}
	peekFile(&p, f, o)
	return p, nil
}

func (o Options) normalize() Options {
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultRows
	}
	if o.MaxRows > MaxRowsCap {
		o.MaxRows = MaxRowsCap
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultBytes
	}
	if o.MaxBytes > MaxBytesCap {
		o.MaxBytes = MaxBytesCap
	}
	return o
}

// file is what a preview reads: random access for workbooks and Parquet
// footers, a stream for everything else.
type file interface {
	io.Reader
	io.ReaderAt
}

// peekFile fills p from f, whose size is p.Size.
func peekFile(p *Preview, f file, o Options) {
	if p.Size == 0 {
		p.Format = Text
		p.RowCountKind = CountExact
		p.Problems = append(p.Problems, "The file is empty.")
		return
	}
	counter := &progressio.Counter{R: f}
	magic := make([]byte, 4)
	n, _ := f.ReadAt(magic, 0)
	magic = magic[:n]
	ext := strings.ToLower(filepath.Ext(p.Name))
	switch {
	case bytes.HasPrefix(magic, []byte("PK\x03\x04")):
		peekXLSX(p, f, o)
		return
	case bytes.HasPrefix(magic, []byte("PAR1")):
		peekParquet(p, f)
		return
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		p.Compression = "gzip"
		zr, err := gzip.NewReader(counter)
		if err != nil {
			p.Format = Binary
			p.Problems = append(p.Problems, "The file looks gzip-compressed but cannot be decompressed: "+err.Error()+".")
			p.ReadBytes = counter.N
			return
		}
		zr.Multistream(true)
		ext = strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(p.Name), ".gz")))
		head, complete := readHead(zr, o)
		peekText(p, head, complete, ext, o)
		p.ReadBytes = counter.N
		if !complete {
			p.RowCountKind = CountAtLeast
		}
		return
	}
	head, complete := readHead(counter, o)
	peekText(p, head, complete, ext, o)
	p.ReadBytes = counter.N
}

// readHead reads the head of a text file: o.MaxBytes, grown (up to
// MaxBytesCap) while it holds fewer lines than rows wanted. complete
// reports whether it is the whole file.
func readHead(r io.Reader, o Options) (head []byte, complete bool) {
	limit := o.MaxBytes
	buf := make([]byte, 0, limit)
	for {
		chunk := make([]byte, limit-int64(len(buf)))
		n, err := io.ReadFull(r, chunk)
		buf = append(buf, chunk[:n]...)
		if err != nil { // EOF or short read: the whole file is in buf
			return buf, true
		}
		if bytes.Count(buf, []byte{'\n'}) > o.MaxRows+1 || limit >= MaxBytesCap {
			return buf, false
		}
		limit = min(limit*2, MaxBytesCap)
	}
}

// peekText previews a head of text: delimited, JSON, or neither.
func peekText(p *Preview, head []byte, complete bool, ext string, o Options) {
	text, enc, encProblem, ok := decodeText(head, complete)
	if !ok {
		p.Format = Binary
		p.RowCountKind = CountExact
		p.Problems = append(p.Problems, "This is not a text file (it holds binary data), so it is not a CSV. Export the data as CSV, Excel (.xlsx) or JSON and drop that file.")
		return
	}
	p.Encoding = enc
	if encProblem != "" {
		p.Problems = append(p.Problems, encProblem)
	}
	trimmed := strings.TrimLeft(text, " \t\r\n")
	isJSONExt := ext == ".json" || ext == ".jsonl" || ext == ".ndjson"
	if isJSONExt || (len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{')) {
		if peekJSON(p, trimmed, complete, ext, o) || isJSONExt {
			return
		}
		// Not JSON after all (a CSV whose first cell starts with "["): read it as text.
		p.Problems = p.Problems[:0]
		if encProblem != "" {
			p.Problems = append(p.Problems, encProblem)
		}
	}
	peekDelimited(p, text, complete, ext, o)
}
