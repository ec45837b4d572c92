package knowledge

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"rehome/sandbox"
)

//go:embed parse.py
var parseScript string

// Runner runs one sandboxed run (core.Runs does, with the saved limits
// and the run's record).
type Runner interface {
	Run(ctx context.Context, req sandbox.RunRequest, source string, progress func(sandbox.Progress)) (*sandbox.Result, error)
}

// Section is a stretch of a file's text with its place: a PDF page or
// PPTX slide, a heading path, a sheet.
type Section struct {
	Page    int    `json:"page"`
	Section string `json:"section"`
	Text    string `json:"text"`
}

// Document is a file's text as the parser read it.
type Document struct {
	Format   string
	Pages    int
	Sections []Section
}

// Formats read in the sandbox (binary, zipped or markup formats whose
// parsers are large attack surfaces) and on the host (plain text, read
// as UTF-8 with the standard library and nothing else).
var (
	sandboxFormats = map[string]string{".pdf": "pdf", ".docx": "docx", ".pptx": "pptx", ".xlsx": "xlsx", ".html": "html", ".htm": "html", ".xhtml": "html"}
	textFormats    = map[string]string{".txt": "text", ".text": "text", ".md": "markdown", ".markdown": "markdown", ".csv": "csv", ".tsv": "tsv", ".json": "json", ".rst": "text", ".log": "text"}
	codeExts       = ".py .go .js .ts .tsx .jsx .java .c .h .cc .cpp .hpp .cs .rb .rs .php .swift .kt .scala .sh .bash .sql .r .m .lua .pl .yaml .yml .toml .ini .cfg .xml .css .scss .svelte .vue .tex .ipynb"
)

// FormatOf is the format a file name says, "" for one rehome cannot index.
func FormatOf(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	if f, ok := sandboxFormats[ext]; ok {
		return f
	}
	if f, ok := textFormats[ext]; ok {
		return f
	}
	if ext != "" && strings.Contains(codeExts+" ", " "+ext+" ") {
		return "code"
	}
	return ""
}

// parseTimeout bounds one file's parse in the sandbox.
const parseTimeout = 3 * time.Minute

// parse reads the blob at path (named name by the user) into a Document:
// in the sandbox for the formats of sandboxFormats, on the host for text.
func (s *Service) parse(ctx context.Context, path, name string) (Document, error) {
	format := FormatOf(name)
	switch {
	case format == "":
		return Document{}, fmt.Errorf("%w (%s): rehome indexes PDF, DOCX, PPTX, XLSX, HTML, Markdown, text, CSV/TSV, JSON and source code", ErrUnsupported, strings.ToLower(filepath.Ext(name)))
	case sandboxFormats[strings.ToLower(filepath.Ext(name))] != "":
		return s.parseInSandbox(ctx, path, format)
	}
	return parseText(path, format)
}

func (s *Service) parseInSandbox(ctx context.Context, path, format string) (Document, error) {
	if s.run == nil {
		return Document{}, ErrNoSandbox
	}
	out, err := os.MkdirTemp(s.dir, "parse-*")
	if err != nil {
		return Document{}, err
	}
	defer os.RemoveAll(out)
	code := fmt.Sprintf("INPUT = %q\nFORMAT = %q\nMAX_TEXT = %d\n", "/mnt/data/"+filepath.Base(path), format, MaxFileTokens*4) + parseScript
	res, err := s.run.Run(ctx, sandbox.RunRequest{Code: code, InputPath: path, OutputDir: out,
		Limits: sandbox.Limits{Timeout: parseTimeout, Memory: 1 << 30, OutputBytes: 128 << 20}}, "knowledge", nil)
	if err != nil {
		if ctx.Err() != nil {
			return Document{}, ctx.Err()
		}
		return Document{}, fmt.Errorf("%w: %v", ErrNoSandbox, err)
	}
	var parsed string
	for _, f := range res.Files {
		if f.Name == "rehome-parsed.json" {
			parsed = f.Path
		}
	}
	switch {
	case parsed == "" && res.OOMKilled:
		return Document{}, fmt.Errorf("%w: reading it took more than the sandbox's memory (a zip bomb, or a file too complex)", ErrParse)
	case parsed == "" && res.TimedOut:
		return Document{}, fmt.Errorf("%w: reading it took longer than %s", ErrParse, parseTimeout)
	case parsed == "":
		return Document{}, fmt.Errorf("%w: the parser stopped (%s) %s", ErrParse, res.Summary, lastLine(res.Stderr))
	}
	data, err := os.ReadFile(parsed)
	if err != nil {
		return Document{}, err
	}
	var v struct {
		OK       bool      `json:"ok"`
		Reason   string    `json:"reason"`
		Detail   string    `json:"detail"`
		Pages    int       `json:"pages"`
		Sections []Section `json:"sections"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return Document{}, fmt.Errorf("%w: the parser's answer is not JSON: %v", ErrParse, err)
	}
	if !v.OK {
		sentinel := map[string]error{"encrypted": ErrEncrypted, "no_text": ErrNoText, "not_format": ErrNotFormat,
			"zip_bomb": ErrZipBomb, "too_long": ErrTooManyTokens}[v.Reason]
		if sentinel == nil {
			sentinel = ErrParse
		}
		return Document{}, &FileError{Err: sentinel, Words: v.Detail}
	}
	return Document{Format: format, Pages: v.Pages, Sections: v.Sections}, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}

// FileError is why one file was not indexed: a sentinel of errors.go
// and the words that say it for this file.
type FileError struct {
	Err   error
	Words string
}

// Error is the words (or the sentinel's).
func (e *FileError) Error() string {
	if e.Words != "" {
		return e.Words
	}
	return e.Err.Error()
}

// Unwrap returns the sentinel.
func (e *FileError) Unwrap() error { return e.Err }

// parseText reads a text file on the host: UTF-8 (a BOM dropped), no NUL
// bytes; Markdown split at its headings, CSV/TSV as rows "a | b" with
// their header, JSON indented.
func parseText(path, format string) (Document, error) {
	data, err := os.ReadFile(path)
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
		if json.Indent(&buf, data, "", " ") != nil {
			return Document{}, &FileError{Err: ErrNotFormat, Words: "not JSON although named .json"}
		}
		doc.Sections = []Section{{Text: buf.String()}}
	default:
		doc.Sections = []Section{{Text: text}}
	}
	return doc, err
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
				heads = append(heads, title)
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
	row := 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &FileError{Err: ErrNotFormat, Words: "not a readable " + strings.ToUpper(format) + ": " + err.Error()}
		}
		line := strings.Join(rec, " | ")
		if row == 0 {
			header = line
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
