package dataset

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func peek(t *testing.T, name, content string) Preview {
	t.Helper()
	p, err := Peek(write(t, name, []byte(content)), Options{})
	if err != nil {
		t.Fatalf("Peek: %v", err)
	}
	return p
}

func types(p Preview) string {
	var s []string
	for _, c := range p.Columns {
		s = append(s, c.Name+":"+string(c.Type))
	}
	return strings.Join(s, " ")
}

func hasProblem(p Preview, sub string) bool {
	for _, m := range p.Problems {
		if strings.Contains(m, sub) {
			return true
		}
	}
	return false
}

func TestCSVBasics(t *testing.T) {
	p := peek(t, "sales.csv", "region,units,price,ok,day,when,note\n"+
		"North,3,1.5,true,2024-01-02,2024-01-02 10:00:00,hi\n"+
		"South,-4,2,false,2024-01-03,2024-01-03T11:30:00Z,\n"+
		"East,10,NaN,yes,2024-02-29,2024-01-04 12:00,\"a, b\"\n")
	if p.Format != CSV || p.Delimiter != "," || !p.Header || p.Encoding != "utf-8" {
		t.Fatalf("format %q delim %q header %v enc %q", p.Format, p.Delimiter, p.Header, p.Encoding)
	}
	want := "region:text units:int price:float ok:bool day:date when:datetime note:text"
	if got := types(p); got != want {
		t.Fatalf("types\n got %s\nwant %s", got, want)
	}
	if p.RowCount != 3 || p.RowCountKind != CountExact {
		t.Fatalf("rows %d %s", p.RowCount, p.RowCountKind)
	}
	if p.Rows[2][6] != "a, b" || p.Columns[2].Empty != 1 || p.Columns[6].Empty != 1 {
		t.Fatalf("rows %q columns %+v", p.Rows, p.Columns)
	}
	if len(p.Problems) != 0 {
		t.Fatalf("problems: %q", p.Problems)
	}
	if p.Name != "sales.csv" || p.Size == 0 || p.ReadBytes != p.Size {
		t.Fatalf("name %q size %d read %d", p.Name, p.Size, p.ReadBytes)
	}
}

func TestDelimiterSniffing(t *testing.T) {
	cases := []struct {
		name, content, delim string
		format               Format
	}{
		{"eu.csv", "name;amount;city\nA;1,5;Köln\nB;2,25;Bonn\n", ";", CSV},
		{"data.tsv", "a\tb\tc\n1\t2\t3\n4\t5\t6\n", "\t", TSV},
		{"noext", "a\tb, x\tc\n1\t2, y\t3\n4\t5, z\t6\n", "\t", TSV},
		{"pipes.txt", "a|b|c\n1|2|3\n", "|", CSV},
		{"quoted.csv", "\"a;b\",c\n\"x;y\",z\n\"1;2\",3\n", ",", CSV},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := peek(t, c.name, c.content)
			if p.Delimiter != c.delim || p.Format != c.format {
				t.Fatalf("delimiter %q format %q, want %q %q", p.Delimiter, p.Format, c.delim, c.format)
			}
			if len(p.Columns) != 3 && c.name != "quoted.csv" {
				t.Fatalf("columns %+v", p.Columns)
			}
		})
	}
}

func TestHeaderDetection(t *testing.T) {
	p := peek(t, "nums.csv", "1,2,3\n4,5,6\n7,8,9\n")
	if p.Header || types(p) != "0:int 1:int 2:int" || p.RowCount != 3 {
		t.Fatalf("no-header file: header %v types %s rows %d", p.Header, types(p), p.RowCount)
	}
	p = peek(t, "dups.csv", ",a,a,b,a\n1,2,3,4,5\n")
	if !p.Header || types(p) != "Unnamed: 0:int a:int a.1:int b:int a.2:int" {
		t.Fatalf("pandas names: %s", types(p))
	}
	p = peek(t, "words.csv", "name,city\nAnn,Oslo\nBo,Rome\n")
	if !p.Header || p.RowCount != 2 {
		t.Fatalf("text header: %v %d", p.Header, p.RowCount)
	}
}

func TestRaggedRows(t *testing.T) {
	p := peek(t, "ragged.csv", "a,b,c\n1,2,3\n4,5\n6,7,8,9\n10,11,12\n")
	if !hasProblem(p, "more values than there are columns (the first is line 4)") {
		t.Fatalf("problems %q", p.Problems)
	}
	if !hasProblem(p, "fewer values than there are columns (the first is line 3)") {
		t.Fatalf("problems %q", p.Problems)
	}
	if len(p.Rows) != 4 || p.Rows[1][2] != "" || len(p.Rows[2]) != 3 || p.RowCount != 4 {
		t.Fatalf("rows %q count %d", p.Rows, p.RowCount)
	}
}

func TestBadQuotes(t *testing.T) {
	p := peek(t, "quotes.csv", "a,b\n1,he said \"hi\"\n2,ok\n3,\"unclosed\n")
	if !hasProblem(p, "Line 2 has a quote") {
		t.Fatalf("problems %q", p.Problems)
	}
	if len(p.Rows) < 2 || p.Rows[0][1] != "he said \"hi\"" {
		t.Fatalf("rows %q", p.Rows)
	}
}

func TestBinary(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00")
	p, err := Peek(write(t, "photo.csv", png), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != Binary || !hasProblem(p, "not a text file") || len(p.Rows) != 0 {
		t.Fatalf("%+v", p)
	}
}

func TestNotUTF8(t *testing.T) {
	// "Café" and "Zürich" in Windows-1252, on line 3.
	data := []byte("name,city\nAnn,Oslo\nCaf\xe9,Z\xfcrich\n")
	p, err := Peek(write(t, "latin.csv", data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Encoding != "cp1252" || !hasProblem(p, "line 3") {
		t.Fatalf("encoding %q problems %q", p.Encoding, p.Problems)
	}
	if p.Rows[1][0] != "Café" || p.Rows[1][1] != "Zürich" {
		t.Fatalf("rows %q", p.Rows)
	}
}

func TestBOMs(t *testing.T) {
	p := peek(t, "bom.csv", "\ufeffid,name\n1,a\n")
	if p.Encoding != "utf-8-sig" || p.Columns[0].Name != "id" {
		t.Fatalf("utf-8 bom: %q %+v", p.Encoding, p.Columns)
	}
	// Excel's "Unicode Text": UTF-16LE with a BOM, tab-separated.
	var b bytes.Buffer
	b.Write([]byte{0xff, 0xfe})
	for _, r := range "id\tname\r\n1\tÅsa\r\n" {
		b.Write([]byte{byte(r), byte(r >> 8)})
	}
	p, err := Peek(write(t, "excel.txt", b.Bytes()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Encoding != "utf-16" || p.Format != TSV || p.Rows[0][1] != "Åsa" {
		t.Fatalf("utf-16: %q %q %q", p.Encoding, p.Format, p.Rows)
	}
}

func TestEmptyAndBlank(t *testing.T) {
	p := peek(t, "empty.csv", "")
	if !hasProblem(p, "empty") || p.RowCount != 0 {
		t.Fatalf("%+v", p)
	}
	p = peek(t, "blank.csv", "\n\n  \n")
	if !hasProblem(p, "blank") {
		t.Fatalf("%+v", p)
	}
	p = peek(t, "header.csv", "a,b,c\n")
	if !p.Header || len(p.Columns) != 3 || p.RowCount != 0 || p.Columns[0].Type != Empty {
		t.Fatalf("header only: %+v", p)
	}
}

func TestText(t *testing.T) {
	p := peek(t, "notes.txt", "Dear diary\nToday I wrote some words\n")
	if p.Format != Text || p.Note == "" || len(p.Rows) != 1 {
		t.Fatalf("%+v", p)
	}
}

func TestOpenErrors(t *testing.T) {
	_, err := Peek(filepath.Join(t.TempDir(), "gone.csv"), Options{})
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing: %v", err)
	}
	_, err = Peek(t.TempDir(), Options{})
	if !errors.Is(err, ErrNotFile) || !strings.Contains(err.Error(), "a folder") {
		t.Fatalf("folder: %v", err)
	}
}

func TestLongCellsAndMaxRows(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,text\n")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "%d,%s\n", i, strings.Repeat("é", 300))
	}
	p, err := Peek(write(t, "long.csv", []byte(b.String())), Options{MaxRows: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rows) != 5 || p.RowCount != 100 {
		t.Fatalf("rows %d count %d", len(p.Rows), p.RowCount)
	}
	if cell := p.Rows[0][1]; !strings.HasSuffix(cell, "…") || len([]rune(cell)) != maxCellRunes+1 {
		t.Fatalf("cell not cut: %d runes", len([]rune(cell)))
	}
}

// virtualCSV is a huge CSV that exists only as a function of the offset:
// a header, then the same fixed-width row repeated. It counts the bytes
// read so a test can prove the preview reads only a bounded head.
type virtualCSV struct {
	header, row string
	size        int64
	read        int64
	off         int64
}

func (v *virtualCSV) ReadAt(b []byte, off int64) (int, error) {
	if off >= v.size {
		return 0, io.EOF
	}
	n := 0
	for n < len(b) && off+int64(n) < v.size {
		o := off + int64(n)
		if o < int64(len(v.header)) {
			n += copy(b[n:], v.header[o:])
			continue
		}
		r := (o - int64(len(v.header))) % int64(len(v.row))
		n += copy(b[n:min(len(b), n+int(v.size-o))], v.row[r:])
	}
	v.read += int64(n)
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

func (v *virtualCSV) Read(b []byte) (int, error) {
	n, err := v.ReadAt(b, v.off)
	v.off += int64(n)
	return n, err
}

func TestHugeFileReadsOnlyItsHead(t *testing.T) {
	row := "2024-05-01,North,12345,99.5,\"quoted, text\"\n"
	header := "day,region,units,price,note\n"
	rows := int64(50_000_000) // a 2.2 GB file
	v := &virtualCSV{header: header, row: row, size: int64(len(header)) + rows*int64(len(row))}
	p := Preview{Name: "huge.csv", Size: v.size, Rows: [][]string{}, Problems: []string{}}
	peekFile(&p, v, Options{}.normalize())
	if v.read > DefaultBytes+4 {
		t.Fatalf("read %d bytes of a %d-byte file; the head is %d", v.read, v.size, DefaultBytes)
	}
	if p.RowCountKind != CountEstimate || p.RowCount < rows*99/100 || p.RowCount > rows*101/100 {
		t.Fatalf("estimate %d (%s), want about %d", p.RowCount, p.RowCountKind, rows)
	}
	if types(p) != "day:date region:text units:int price:float note:text" || len(p.Problems) != 0 || len(p.Rows) != DefaultRows {
		t.Fatalf("types %s problems %q rows %d", types(p), p.Problems, len(p.Rows))
	}
}

func TestHeadCutInsideQuotedValue(t *testing.T) {
	// Records with quoted multi-line values; the 1 MiB head ends inside one.
	var b strings.Builder
	b.WriteString("id,comment\n")
	for i := 0; b.Len() < 3*DefaultBytes; i++ {
		fmt.Fprintf(&b, "%d,\"line one\nline two, still the same value\"\n", i)
	}
	p := peek(t, "multiline.csv", b.String())
	if len(p.Problems) != 0 || p.RowCountKind != CountEstimate || p.Rows[0][1] != "line one\nline two, still the same value" {
		t.Fatalf("problems %q kind %s row %q", p.Problems, p.RowCountKind, p.Rows[0])
	}
}

func TestVeryLongRowsGrowTheHead(t *testing.T) {
	// Three rows of 1.5 MiB each: the head grows past 1 MiB to show them.
	long := strings.Repeat("x", 3<<19)
	p := peek(t, "wide.csv", "a,b\n1,"+long+"\n2,"+long+"\n3,"+long+"\n")
	if len(p.Rows) != 3 || p.ReadBytes <= DefaultBytes {
		t.Fatalf("rows %d read %d", len(p.Rows), p.ReadBytes)
	}
}

func TestJSON(t *testing.T) {
	p := peek(t, "records.json", `[{"id": 1, "name": "a", "tags": ["x"], "ok": true},
 {"id": 2, "name": "b", "extra": null, "ok": false}]`)
	if p.Format != JSON || p.RowCount != 2 || types(p) != "id:int name:text tags:text ok:bool extra:empty" {
		t.Fatalf("%s %d %s %q", p.Format, p.RowCount, types(p), p.Problems)
	}
	if p.Rows[0][2] != `["x"]` {
		t.Fatalf("rows %q", p.Rows)
	}

	p = peek(t, "events.jsonl", "{\"t\": 1.5, \"e\": \"a\"}\n{\"t\": 2, \"e\": \"b\"}\n{\"t\": 3, \"e\": \"c\"}\n")
	if p.Format != JSONL || p.RowCount != 3 || types(p) != "t:float e:text" {
		t.Fatalf("jsonl: %s %d %s", p.Format, p.RowCount, types(p))
	}

	p = peek(t, "config.json", `{"name": "x", "size": 3}`)
	if p.Format != JSON || p.Note == "" || len(p.Rows) != 2 || p.Rows[1][0] != "size" {
		t.Fatalf("object: %+v", p)
	}

	p = peek(t, "broken.json", "[{\"a\": 1},\n{\"a\": 2},\n{\"a\": }]")
	if p.Format != JSON || !hasProblem(p, "near line 3") || len(p.Rows) != 2 {
		t.Fatalf("broken: %q %q", p.Problems, p.Rows)
	}

	// A CSV whose first value starts with "[" is still a CSV.
	p = peek(t, "brackets.csv", "[tag],count\n[a],1\n[b],2\n")
	if p.Format != CSV || len(p.Problems) != 0 || p.RowCount != 2 {
		t.Fatalf("brackets: %s %q", p.Format, p.Problems)
	}
}

func TestJSONHuge(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; b.Len() < 3*DefaultBytes; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"id": %d, "value": %d.5}`, i, i)
	}
	b.WriteString("]")
	p := peek(t, "big.json", b.String())
	if len(p.Problems) != 0 || p.RowCountKind != CountEstimate || p.ReadBytes > DefaultBytes+4096 {
		t.Fatalf("problems %q kind %s read %d", p.Problems, p.RowCountKind, p.ReadBytes)
	}
	if real := int64(strings.Count(b.String(), "{")); p.RowCount < real*95/100 || p.RowCount > real*105/100 {
		t.Fatalf("estimate %d, real %d", p.RowCount, real)
	}
}

func TestGzip(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte("a,b\n1,x\n2,y\n"))
	zw.Close()
	p, err := Peek(write(t, "data.csv.gz", b.Bytes()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Compression != "gzip" || p.Format != CSV || p.RowCount != 2 || p.RowCountKind != CountExact {
		t.Fatalf("%+v", p)
	}
}

func TestZipWithOneCSV(t *testing.T) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create("export/data.csv")
	w.Write([]byte("a,b\n1,x\n2,y\n"))
	zw.Close()
	p, err := Peek(write(t, "data.zip", b.Bytes()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Compression != "zip" || p.Format != CSV || p.RowCount != 2 || !strings.Contains(p.Note, "export/data.csv") {
		t.Fatalf("%+v", p)
	}
}

func TestExactCountPastTheSample(t *testing.T) {
	// 3000 rows fit in the head: every one is counted, not just the sample.
	var b strings.Builder
	b.WriteString("a,b\n")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "%d,x\n", i)
	}
	p := peek(t, "n.csv", b.String())
	if p.RowCount != 3000 || p.RowCountKind != CountExact || len(p.Rows) != DefaultRows {
		t.Fatalf("rows %d %s shown %d", p.RowCount, p.RowCountKind, len(p.Rows))
	}
	p = peek(t, "noheader.csv", strings.TrimPrefix(b.String(), "a,b\n"))
	if p.Header || p.RowCount != 3000 {
		t.Fatalf("no header: %v %d", p.Header, p.RowCount)
	}
}
