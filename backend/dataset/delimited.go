package dataset

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// delimiters are the field separators a sniff considers, in preference order.
var delimiters = []rune{',', ';', '\t', '|'}

// sniffDelimiter picks the separator that splits the first lines of text
// into the same number of fields most consistently. ok is false when no
// separator appears at all.
func sniffDelimiter(text, ext string) (delim rune, ok bool) {
	lines := firstLines(text, 50)
	if len(lines) == 0 {
		return ',', false
	}
	best, bestScore := ',', 0.0
	for _, d := range delimiters {
		counts := map[int]int{}
		for _, l := range lines {
			counts[countOutsideQuotes(l, d)]++
		}
		mode, modeLines := 0, 0
		for c, n := range counts {
			if c > 0 && (n > modeLines || (n == modeLines && c > mode)) {
				mode, modeLines = c, n
			}
		}
		if mode == 0 {
			continue
		}
		// Consistency first, then more fields; a hint from the extension
		// breaks near-ties.
		score := float64(modeLines)/float64(len(lines)) + float64(min(mode, 50))/1000
		if d == '\t' && (ext == ".tsv" || ext == ".tab") {
			score += 0.2
		}
		if d == ',' && ext == ".csv" {
			score += 0.05
		}
		if score > bestScore {
			best, bestScore = d, score
		}
	}
	return best, bestScore >= 0.5
}

// firstLines returns up to n non-empty physical lines of text, leaving out
// a last line that was cut.
func firstLines(text string, n int) []string {
	var out []string
	for len(text) > 0 && len(out) < n {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			if len(out) == 0 {
				out = append(out, text)
			}
			break
		}
		if l := strings.TrimRight(text[:i], "\r"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
		text = text[i+1:]
	}
	return out
}

func countOutsideQuotes(line string, d rune) int {
	n, quoted := 0, false
	for _, c := range line {
		switch {
		case c == '"':
			quoted = !quoted
		case c == d && !quoted:
			n++
		}
	}
	return n
}

// peekDelimited previews a CSV/TSV head.
func peekDelimited(p *Preview, text string, complete bool, ext string, o Options) {
	delim, found := sniffDelimiter(text, ext)
	p.Format = CSV
	if delim == '\t' {
		p.Format = TSV
	}
	p.Delimiter = string(delim)
	if !found && ext != ".csv" && ext != ".tsv" {
		p.Format = Text
		p.Note = "No columns were found (no commas, semicolons, tabs or pipes), so each line is shown as one value. Code can still read the file."
	}

	records, offsets, total, err := parseRecords(text, delim, false, complete)
	var pe *csv.ParseError
	if errors.As(err, &pe) && (errors.Is(pe.Err, csv.ErrQuote) || errors.Is(pe.Err, csv.ErrBareQuote)) {
		what := "a quote (\") inside a value that is not itself in quotes"
		if errors.Is(pe.Err, csv.ErrQuote) {
			what = "a quoted value whose closing quote is missing or misplaced"
		}
		p.Problems = append(p.Problems, fmt.Sprintf("Line %d has %s. The preview reads it leniently; pandas may stop there or merge lines: fix the quotes in that line, or read it with on_bad_lines='skip'.", pe.StartLine, what))
		records, offsets, total, _ = parseRecords(text, delim, true, complete)
	} else if err != nil {
		p.Problems = append(p.Problems, "The file could not be read as a table: "+err.Error()+".")
	}
	if len(records) == 0 {
		p.RowCountKind = CountExact
		if strings.TrimSpace(text) == "" {
			p.Problems = append(p.Problems, "The file holds only blank lines.")
		}
		return
	}

	var names []string
	var data [][]string
	p.Header, names, data = splitHeader(records)
	p.Problems = append(p.Problems, raggedRows(data, offsets[len(records)-len(data):], len(names))...)

	showTable(p, names, data, o, "file")

	countDelimitedRows(p, complete, total, len(records)-len(data), len(data), offsets)
}

// showTable sets the preview's columns (at most maxColumns: the note says
// how many the file or sheet, whole, has) and its first rows.
func showTable(p *Preview, names []string, data [][]string, o Options, whole string) {
	if len(names) > maxColumns {
		p.Note = joinNote(p.Note, fmt.Sprintf("The %s has %d columns; the preview shows the first %d.", whole, len(names), maxColumns))
		names = names[:maxColumns]
	}
	p.Columns = inferColumns(names, data)
	for i := 0; i < len(data) && i < o.MaxRows; i++ {
		p.Rows = append(p.Rows, displayRow(data[i], len(names)))
	}
}

// raggedRows are the problems of the rows with more or fewer values than
// there are columns (width); offsets are the rows'.
func raggedRows(data [][]string, offsets []recordPos, width int) []string {
	var probs []string
	raggedMore, raggedFewer, firstMore, firstFewer := 0, 0, 0, 0
	for i, r := range data {
		line := offsets[i].line
		switch {
		case len(r) > width:
			raggedMore++
			if firstMore == 0 {
				firstMore = line
			}
		case len(r) < width:
			raggedFewer++
			if firstFewer == 0 {
				firstFewer = line
			}
		}
	}
	if raggedMore > 0 {
		probs = append(probs, fmt.Sprintf("%d of the first %d rows have more values than there are columns (the first is line %d). pandas refuses such a file: fix those lines, or read it with on_bad_lines='skip' to drop them.", raggedMore, len(data), firstMore))
	}
	if raggedFewer > 0 {
		probs = append(probs, fmt.Sprintf("%d of the first %d rows have fewer values than there are columns (the first is line %d); the missing values read as empty.", raggedFewer, len(data), firstFewer))
	}
	return probs
}

// countDelimitedRows sets the row count: exact when the head is the whole
// file (total records, headerRows of them the header), else extrapolated
// from the bytes per row of the n data rows seen so far.
func countDelimitedRows(p *Preview, complete bool, total, headerRows, n int, offsets []recordPos) {
	if complete {
		p.RowCount = int64(total - headerRows)
		p.RowCountKind = CountExact
		return
	}
	p.RowCountKind = CountEstimate
	headerEnd := int64(0)
	if p.Header {
		headerEnd = offsets[0].end
	}
	last := offsets[len(offsets)-1].end
	if n > 0 && last > headerEnd {
		perRow := float64(last-headerEnd) / float64(n)
		p.RowCount = int64(float64(p.Size-headerEnd)/perRow + 0.5)
	}
	if p.RowCount < int64(n) {
		p.RowCount = int64(n)
	}
}

type recordPos struct {
	line int   // line where the record starts
	end  int64 // byte offset just past the record
}

// parseRecords reads up to sampleRows records of text. When the head is
// not the whole file, its last record may be cut: it is dropped, as is a
// quote error that reaches the end of the head within one long record.
//
// When the head is the whole file, it goes on past the sample to count
// every record: total is that count (records kept plus the rest).
func parseRecords(text string, delim rune, lazy, complete bool) (recs [][]string, pos []recordPos, total int, err error) {
	if !complete {
		if i := strings.LastIndexByte(text, '\n'); i >= 0 {
			text = text[:i+1]
		}
	}
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = delim
	r.FieldsPerRecord = -1
	r.LazyQuotes = lazy
	r.ReuseRecord = false
	for complete || len(recs) < sampleRows+1 {
		start := r.InputOffset()
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if !complete && errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrQuote) && int64(len(text))-start < 64<<10 {
				break // a quoted value cut by the end of the head
			}
			return recs, pos, total, err
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // blank line
		}
		total++
		if len(recs) > sampleRows {
			continue // counted, not kept
		}
		line, _ := r.FieldPos(0)
		recs = append(recs, rec)
		pos = append(pos, recordPos{line: line, end: r.InputOffset()})
	}
	return recs, pos, total, nil
}

// hasHeader guesses whether the first record names the columns, the way
// Python's csv.Sniffer does: a column whose values are typed (numbers,
// dates, booleans) but whose first cell is not, votes for a header.
// splitHeader decides whether the first record is a header and returns the
// column names pandas would give and the data records after it.
func splitHeader(records [][]string) (header bool, names []string, data [][]string) {
	if hasHeader(records) {
		return true, pandasNames(records[0]), records[1:]
	}
	for i := range records[0] {
		names = append(names, strconv.Itoa(i)) // pandas names them 0, 1, … with header=None
	}
	return false, names, records
}

func hasHeader(records [][]string) bool {
	first := records[0]
	if len(records) == 1 {
		for _, c := range first {
			if !missing(c) && isFloat(strings.TrimSpace(c)) {
				return false
			}
		}
		return true
	}
	rest := records[1:]
	if len(rest) > 200 {
		rest = rest[:200]
	}
	names := make([]string, len(first))
	cols := inferColumns(names, rest)
	votes := 0
	for i, c := range cols {
		cell := strings.TrimSpace(first[i])
		switch c.Type {
		case Integer, Float:
			if isFloat(cell) {
				votes--
			} else {
				votes++
			}
		case Bool, Date, DateTime:
			set := newTypeSet()
			set.add(cell)
			if set.result() == c.Type {
				votes--
			} else {
				votes++
			}
		}
	}
	if votes != 0 {
		return votes > 0
	}
	// Only text columns: a header has distinct, non-empty names.
	seen := map[string]bool{}
	for _, c := range first {
		c = strings.TrimSpace(c)
		if c == "" || seen[c] {
			return false
		}
		seen[c] = true
	}
	return true
}

// pandasNames names the columns as pandas.read_csv does: an empty name
// becomes "Unnamed: i" and a repeated one "name.1", "name.2", …, so code
// written from the preview finds the columns.
func pandasNames(header []string) []string {
	out := make([]string, len(header))
	counts := map[string]int{}
	for i, col := range header {
		if col == "" {
			col = "Unnamed: " + strconv.Itoa(i)
		}
		cur := counts[col]
		for cur > 0 { // pandas' _dedup_names
			counts[col] = cur + 1
			col = col + "." + strconv.Itoa(cur)
			cur = counts[col]
		}
		out[i] = col
		counts[col] = cur + 1
	}
	return out
}

// displayRow returns the record cut or padded to width cells, long values cut.
func displayRow(r []string, width int) []string {
	out := make([]string, width)
	for i := 0; i < width && i < len(r); i++ {
		out[i] = cut(r[i])
	}
	return out
}

func cut(s string) string {
	if utf8.RuneCountInString(s) <= maxCellRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == maxCellRunes {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}
