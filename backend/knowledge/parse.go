package knowledge

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rehome/backend/bytesize"
	"rehome/backend/llm"
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
		doc, err := s.parseInSandbox(ctx, path, format)
		if err == nil && format == "pdf" {
			doc.Sections = dropRunningLines(doc.Sections) // running heads and feet (running.go)
		}
		return doc, err
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
	data, err := readAtMost(parsed, maxParsedBytes)
	if errors.Is(err, errOverRead) {
		return Document{}, &FileError{Err: ErrTooManyTokens, Words: fmt.Sprintf("%v: the parser's answer is over %s; split it", ErrTooManyTokens, bytesize.Format(maxParsedBytes))}
	}
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

// What a read of a file's text on the host may hold. A text's tokens are
// its bytes over llm.BytesPerToken, so a text file of more than
// maxTextBytes is over MaxFileTokens and is refused before it is read
// (twice that: JSON's indentation may shrink it, CSV's rows may grow);
// what any reader builds from the text stops at the same count.
const (
	maxTextBytes = MaxFileTokens * llm.BytesPerToken
	maxReadBytes = 2 * maxTextBytes
	// maxParsedBytes bounds the sandboxed parser's answer: its text is
	// at most MAX_TEXT characters of up to 4 bytes, in JSON.
	maxParsedBytes = 4*maxTextBytes + 1<<20
	// maxHeading bounds a heading (Markdown) or a header row (CSV) as
	// repeated in each section it names.
	maxHeading = 1000
)

// readAtMost reads the file at path whole if it holds at most max bytes
// (checked before reading, and while reading should it grow), else
// returns errOverRead.
func readAtMost(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > max {
		return nil, errOverRead
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(data)) > max {
		return nil, errOverRead
	}
	return data, err
}

// tooBigToRead is the refusal of a file read on the host (text) whose size
// alone puts it over MaxFileTokens, nil for any other: it is refused
// before it is copied or read.
func tooBigToRead(name string, size int64) error {
	if FormatOf(name) == "" || sandboxFormats[strings.ToLower(filepath.Ext(name))] != "" || size <= maxReadBytes {
		return nil
	}
	return tooManyTokens(fmt.Sprintf("%s of text, where %d tokens are about %s", bytesize.Format(size), MaxFileTokens, bytesize.Format(maxTextBytes)))
}

// tooManyTokens is the refusal of a text over MaxFileTokens.
func tooManyTokens(how string) error {
	return &FileError{Err: ErrTooManyTokens, Words: fmt.Sprintf("%v (%s); split it", ErrTooManyTokens, how)}
}
