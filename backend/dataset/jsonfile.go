package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// peekJSON previews a JSON document (an array of records) or JSON Lines
// (one record a line). It reports false when text is not JSON at all, so
// the caller can read it as delimited text instead.
func peekJSON(p *Preview, text string, complete bool, ext string, o Options) bool {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	r := &jsonRecords{text: text, seen: map[string]bool{}, keyPos: map[string]int{}}
	lines := ext == ".jsonl" || ext == ".ndjson"
	first, err := dec.Token()
	if err != nil {
		if ext != ".json" && !lines {
			return false
		}
		p.Format = JSON
		p.RowCountKind = CountExact
		p.Problems = append(p.Problems, jsonProblem(text, dec.InputOffset(), err))
		return true
	}
	start := dec.InputOffset()
	switch {
	case first == json.Delim('[') && !lines:
		p.Format = JSON
		r.readArray(dec, complete)
	case first == json.Delim('{'):
		// JSON Lines (several objects, one a line), or one object.
		r.readLines()
		if r.count == 1 && r.parseErr == nil && !lines {
			return peekObject(p, r.records[0], text)
		}
		p.Format = JSONL
		start = 0
	default:
		if ext != ".json" && !lines {
			return false
		}
		p.Format = JSON
		p.RowCountKind = CountExact
		p.Note = "This JSON file holds a single value, not a list of records; code can load it with json.load."
		return true
	}
	if r.count == 0 && r.parseErr != nil && ext != ".json" && !lines {
		return false // not JSON after all
	}
	if r.parseErr != nil && (complete || int64(len(text))-r.lastEnd > 64<<10) {
		p.Problems = append(p.Problems, jsonProblem(text, r.lastEnd, r.parseErr))
	}
	if len(r.records) == 0 && r.parseErr != nil && !complete && r.count == 0 {
		p.Problems = append(p.Problems, "The first record is larger than the preview reads (8 MiB).")
	}
	r.show(p, o)
	r.countRows(p, complete, start)
	return true
}

// jsonRecords are the records a JSON file's preview read: the first
// sampleRows, every key in order, how many, and where reading stopped.
type jsonRecords struct {
	text     string
	records  []map[string]any
	keys     []string
	seen     map[string]bool
	keyPos   map[string]int
	count    int64
	lastEnd  int64 // the offset after the last record read
	parseErr error
}

// add counts one record (a scalar is pandas' column 0) and its keys.
func (r *jsonRecords) add(v any, end int64) {
	r.count++
	r.lastEnd = end
	m, ok := v.(map[string]any)
	if !ok {
		m = map[string]any{"0": v} // pandas names a list of scalars' column 0
	}
	if len(r.records) < sampleRows {
		r.records = append(r.records, m)
	}
	for _, k := range orderedKeys(r.text, m, r.keyPos) {
		if !r.seen[k] {
			r.seen[k] = true
			r.keys = append(r.keys, k)
		}
	}
}

// readArray reads the records of a JSON array, after its '['.
func (r *jsonRecords) readArray(dec *json.Decoder, complete bool) {
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			r.parseErr = err
			return
		}
		r.add(v, dec.InputOffset())
	}
	if _, err := dec.Token(); err != nil && complete {
		r.parseErr = err
	}
}

// readLines reads the text's objects one after another (JSON Lines).
func (r *jsonRecords) readLines() {
	dec := json.NewDecoder(strings.NewReader(r.text))
	dec.UseNumber()
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return
		}
		if err != nil {
			r.parseErr = err
			return
		}
		r.add(v, dec.InputOffset())
	}
}

// show sets the preview's columns (at most maxColumns) and first rows.
func (r *jsonRecords) show(p *Preview, o Options) {
	keys := r.keys
	if len(keys) > maxColumns {
		p.Note = joinNote(p.Note, fmt.Sprintf("The records have %d fields; the preview shows the first %d.", len(keys), maxColumns))
		keys = keys[:maxColumns]
	}
	rows := make([][]string, len(r.records))
	for i, rec := range r.records {
		row := make([]string, len(keys))
		for j, k := range keys {
			row[j] = jsonCell(rec[k])
		}
		rows[i] = row
	}
	p.Header = true
	p.Columns = inferColumns(keys, rows)
	for i := 0; i < len(rows) && i < o.MaxRows; i++ {
		p.Rows = append(p.Rows, displayRow(rows[i], len(keys)))
	}
}

// countRows sets the row count: exact when the whole text was read, else
// estimated from the records' average size since start.
func (r *jsonRecords) countRows(p *Preview, complete bool, start int64) {
	if complete && (r.parseErr == nil || r.count > 0) {
		p.RowCount = r.count
		p.RowCountKind = CountExact
		return
	}
	p.RowCountKind = CountEstimate
	p.RowCount = r.count
	if r.count > 0 && r.lastEnd > start && p.Compression == "" {
		perRow := float64(r.lastEnd-start) / float64(r.count)
		p.RowCount = max(r.count, int64(float64(p.Size-start)/perRow+0.5))
	}
}

// peekObject previews a JSON file that is one object: its keys and values.
func peekObject(p *Preview, m map[string]any, text string) bool {
	p.Format = JSON
	p.Header = true
	p.Note = "This JSON file is one object, not a list of records: its keys are shown. Code can load it with json.load, or pandas.json_normalize for nested records."
	keys := orderedKeys(text, m, map[string]int{})
	rows := make([][]string, 0, len(keys))
	for _, k := range keys {
		rows = append(rows, []string{k, jsonCell(m[k])})
	}
	p.Columns = []Column{{Name: "key", Type: String}, {Name: "value", Type: String}}
	for i := 0; i < len(rows) && i < DefaultRows; i++ {
		p.Rows = append(p.Rows, displayRow(rows[i], 2))
	}
	p.RowCount = int64(len(keys))
	p.RowCountKind = CountExact
	return true
}

// orderedKeys returns m's keys in the order they appear in the source,
// as pandas keeps them (encoding/json forgets the order of a map).
// pos caches where each key first appears, so each key is searched once.
func orderedKeys(src string, m map[string]any, pos map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Order by first occurrence of the quoted key in the source: right for
	// the flat records that tables come from.
	for _, k := range keys {
		if _, ok := pos[k]; ok {
			continue
		}
		q, _ := json.Marshal(k)
		i := strings.Index(src, string(q))
		if i < 0 {
			i = len(src)
		}
		pos[k] = i
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && (pos[keys[j]] < pos[keys[j-1]] || pos[keys[j]] == pos[keys[j-1]] && keys[j] < keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

func jsonCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}

// jsonProblem words a JSON syntax error with its line number.
func jsonProblem(text string, offset int64, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		offset = se.Offset
	}
	if offset > int64(len(text)) {
		offset = int64(len(text))
	}
	line := strings.Count(text[:offset], "\n") + 1
	msg := err.Error()
	if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
		msg = "the file ends in the middle of a value"
	}
	return fmt.Sprintf("The JSON is malformed near line %d (%s); the records before that are shown. Fix the file in an editor, or export it again.", line, msg)
}
