package knowledge

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseText feeds text knowledge (Markdown, CSV, TSV, JSON, text) to
// the host's readers and the chunker: nothing may panic, and what they
// make stays within the text bound.
func FuzzParseText(f *testing.F) {
	f.Add([]byte(guideMD), uint8(0))
	f.Add([]byte("a,b\n1,\"2\"\n3,4\n"), uint8(1))
	f.Add([]byte("a\tb\n1\t2\n"), uint8(2))
	f.Add([]byte(`{"a":[1,2,{"b":"c\"d"}],"e":{}}`), uint8(3))
	f.Add([]byte("plain text\n\nwith paragraphs"), uint8(4))
	formats := []string{"markdown", "csv", "tsv", "json", "text"}
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		format := formats[int(kind)%len(formats)]
		p := filepath.Join(t.TempDir(), "f")
		os.WriteFile(p, data, 0o600)
		doc, err := parseText(p, format)
		if err != nil {
			return
		}
		total := 0
		for _, s := range doc.Sections {
			total += len(s.Text)
		}
		if total > 3*maxReadBytes {
			t.Fatalf("%d bytes of input made %d bytes of text", len(data), total)
		}
		Split(doc, Chunking{Tokens: 64, Overlap: 16})
	})
}

// FuzzIndentJSON: the bounded indenter writes what json.Indent writes.
func FuzzIndentJSON(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,{"b":"c\"d"}],"e":{},"f":[]}`))
	f.Add([]byte(`[[[]],[{}]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		var want, got bytes.Buffer
		json.Indent(&want, data, "", " ")
		if !indentJSON(&got, data, 1<<20) {
			return
		}
		if strings.TrimRight(want.String(), " \t\r\n") != got.String() {
			t.Fatalf("indent of %q:\n%q\nwant\n%q", data, got.String(), want.String())
		}
	})
}
