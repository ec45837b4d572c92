package knowledge

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"rehome/backend/bytesize"
)

// parseText reads a text file on the host: UTF-8 (a BOM dropped), no NUL
// bytes; Markdown split at its headings, CSV/TSV as rows "a | b" with
// their header, JSON indented. It holds at most maxReadBytes of the file
// and about as much again of what it makes of it.
func parseText(path, format string) (Document, error) {
	data, err := readAtMost(path, maxReadBytes)
	if errors.Is(err, errOverRead) {
		return Document{}, tooManyTokens(fmt.Sprintf("more than %s of text", bytesize.Format(maxReadBytes)))
	}
	if err != nil {
		return Document{}, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return Document{}, &FileError{Err: ErrNotFormat, Words: "not text although named " + format + ": it holds binary bytes (or is not UTF-8)"}
	}
	text := string(data)
	if strings.TrimSpace(text) == "" {
		return Document{}, &FileError{Err: ErrNoText, Words: "the file is empty"}
	}
	doc := Document{Format: format}
	switch format {
	case "markdown":
		doc.Sections = markdownSections(text)
	case "csv", "tsv":
		doc.Sections, err = tableSections(text, format)
	case "json":
		var buf bytes.Buffer
		if !json.Valid(data) {
			return Document{}, &FileError{Err: ErrNotFormat, Words: "not JSON although named .json"}
		}
		if !indentJSON(&buf, data, maxTextBytes) {
			return Document{}, tooManyTokens("its text indented is over " + bytesize.Format(maxTextBytes))
		}
		doc.Sections = []Section{{Text: buf.String()}}
	default:
		doc.Sections = []Section{{Text: text}}
	}
	return doc, err
}

// indentJSON writes valid JSON data to buf as json.Indent(buf, data, "",
// " ") does, but stops (false) once buf would hold more than max bytes:
// an indentation grows with the depth, so a deep array of short values
// would grow a thousandfold.
func indentJSON(buf *bytes.Buffer, data []byte, max int) bool {
	depth, inString, escaped, open := 0, false, false, false
	newline := func(d int) {
		buf.WriteByte('\n')
		for range d {
			buf.WriteByte(' ')
		}
	}
	for _, c := range data {
		if buf.Len() > max {
			return false
		}
		if inString {
			buf.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		if open { // the first thing in a { or [: a close stays on its line
			open = false
			if c != '}' && c != ']' {
				newline(depth)
			} else {
				depth--
				buf.WriteByte(c)
				continue
			}
		}
		switch c {
		case '{', '[':
			buf.WriteByte(c)
			depth++
			open = true
		case '}', ']':
			depth--
			newline(depth)
			buf.WriteByte(c)
		case ',':
			buf.WriteByte(c)
			newline(depth)
		case ':':
			buf.WriteString(": ")
		case '"':
			inString = true
			buf.WriteByte(c)
		default:
			buf.WriteByte(c)
		}
	}
	return buf.Len() <= max
}

// clip cuts s to at most n bytes, at a rune's start.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// markdownSections splits at ATX headings (# …), outside fenced code,
// each section carrying its heading path.
func markdownSections(text string) []Section {
	var out []Section
	var heads []string
	var buf strings.Builder
	flush := func() {
		if strings.TrimSpace(buf.String()) != "" {
			out = append(out, Section{Section: strings.Join(heads, " › "), Text: buf.String()})
		}
		buf.Reset()
	}
	inFence := false
	for _, ln := range strings.SplitAfter(text, "\n") {
		t := strings.TrimSpace(ln)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
		}
		if !inFence && strings.HasPrefix(t, "#") {
			level := len(t) - len(strings.TrimLeft(t, "#"))
			if title := strings.TrimSpace(strings.Trim(t, "#")); level <= 6 && title != "" && len(t) > level && t[level] == ' ' {
				flush()
				if level-1 < len(heads) {
					heads = heads[:level-1]
				}
				heads = append(heads, clip(title, maxHeading/6))
			}
		}
		buf.WriteString(ln)
	}
	flush()
	return out
}

// tableSections writes a CSV/TSV as "a | b" rows, each block of rows
// with the header again so that every chunk reads as a table.
func tableSections(text, format string) ([]Section, error) {
	r := csv.NewReader(strings.NewReader(text))
	if format == "tsv" {
		r.Comma = '\t'
	}
	r.FieldsPerRecord, r.LazyQuotes = -1, true
	var out []Section
	var header string
	var buf strings.Builder
	row, total := 0, 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &FileError{Err: ErrNotFormat, Words: "not a readable " + strings.ToUpper(format) + ": " + err.Error()}
		}
		line := strings.Join(rec, " | ")
		if total += len(line) + len(header) + 1; total > maxTextBytes {
			return nil, tooManyTokens("its rows are over " + bytesize.Format(maxTextBytes) + " of text")
		}
		if row == 0 {
			header = clip(line, maxHeading)
		} else {
			if buf.Len() == 0 {
				buf.WriteString(header + "\n")
			}
			buf.WriteString(line + "\n")
		}
		row++
		if buf.Len() > 2000 {
			out = append(out, Section{Section: "rows to " + strconv.Itoa(row), Text: buf.String()})
			buf.Reset()
		}
	}
	if buf.Len() > 0 || len(out) == 0 {
		if buf.Len() == 0 {
			buf.WriteString(header)
		}
		out = append(out, Section{Section: "rows to " + strconv.Itoa(row), Text: buf.String()})
	}
	return out, nil
}
