package dataset

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestXLSXFromOpenpyxl(t *testing.T) {
	// testdata/sales.xlsx was written by openpyxl 3.0: inline strings,
	// custom date formats, booleans, two sheets.
	p, err := Peek("testdata/sales.xlsx", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != XLSX || p.Sheet != "Sales" || len(p.Sheets) != 2 || !strings.Contains(p.Note, "2 sheets") {
		t.Fatalf("%s %q %q %q", p.Format, p.Sheet, p.Sheets, p.Note)
	}
	if got := types(p); got != "region:text units:int price:float ok:bool day:date when:datetime" {
		t.Fatalf("types %s", got)
	}
	if p.RowCount != 30 || p.RowCountKind != CountExact {
		t.Fatalf("rows %d %s", p.RowCount, p.RowCountKind)
	}
	if r := p.Rows[0]; strings.Join(r, "|") != "Süd|0|0|true|2024-03-01|2024-03-01 08:30:00" {
		t.Fatalf("row %q", r)
	}
	if len(p.Problems) != 0 {
		t.Fatalf("problems %q", p.Problems)
	}
}

// excelWorkbook writes a workbook laid out the way Excel writes one: shared
// strings, rich text runs, a sheet path found through relationships,
// a blank row inside the data and a dimension.
func excelWorkbook(t *testing.T, rows int) string {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	put := func(name, body string) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	put("[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`)
	put("xl/workbook.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Data 2024" sheetId="1" r:id="rId3"/></sheets></workbook>`)
	put("xl/_rels/workbook.xml.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/data.xml"/></Relationships>`)
	put("xl/sharedStrings.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="4" uniqueCount="4"><si><t>city</t></si><si><t>sold on</t></si><si><r><t>Ber</t></r><r><rPr><b/></rPr><t>lin</t></r></si><si><t>qty</t></si></sst>`)
	put("xl/styles.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/></cellXfs></styleSheet>`)
	var s strings.Builder
	s.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="A1:C` + itoa(rows+2) + `"/><sheetData>`)
	s.WriteString(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>3</v></c></row>`)
	for i := 2; i <= rows+2; i++ {
		if i == 4 {
			continue // a blank row inside the data
		}
		n := itoa(i)
		s.WriteString(`<row r="` + n + `"><c r="A` + n + `" t="s"><v>2</v></c><c r="B` + n + `" s="1"><v>45292</v></c><c r="C` + n + `"><v>` + n + `.0</v></c></row>`)
	}
	s.WriteString(`</sheetData></worksheet>`)
	put("xl/worksheets/data.xml", s.String())
	zw.Close()
	p := filepath.Join(t.TempDir(), "excel.xlsx")
	os.WriteFile(p, b.Bytes(), 0o600)
	return p
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestXLSXExcelLayout(t *testing.T) {
	p, err := Peek(excelWorkbook(t, 10), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Sheet != "Data 2024" || types(p) != "city:text sold on:date qty:int" {
		t.Fatalf("%q %s %q", p.Sheet, types(p), p.Problems)
	}
	if strings.Join(p.Rows[0], "|") != "Berlin|2024-01-01|2" || strings.Join(p.Rows[2], "|") != "||" {
		t.Fatalf("rows %q", p.Rows[:3])
	}
	if p.RowCount != 11 || p.RowCountKind != CountExact { // 10 rows and the blank one
		t.Fatalf("rows %d %s", p.RowCount, p.RowCountKind)
	}

	// A big sheet: the preview stops early and takes the count from the dimension.
	p, err = Peek(excelWorkbook(t, 5000), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.RowCount != 5001 || p.RowCountKind != CountEstimate || len(p.Rows) != DefaultRows {
		t.Fatalf("rows %d %s shown %d", p.RowCount, p.RowCountKind, len(p.Rows))
	}
}

func TestDamagedZip(t *testing.T) {
	p, err := Peek(write(t, "cut.xlsx", []byte("PK\x03\x04 this archive was cut short")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != Binary || !hasProblem(p, "damaged or unfinished zip") {
		t.Fatalf("%+v", p)
	}
}

func TestDateFormatCodes(t *testing.T) {
	for code, want := range map[string]bool{
		"yyyy-mm-dd": true, "d/m/yy h:mm": true, "[h]:mm:ss": true, "0.00": false, `"days" 0`: false,
		"#,##0 [$€-407]": false, `0.0\d`: false, "[Red]0.00": false, "mmm yy": true,
	} {
		if got := isDateFormat(code); got != want {
			t.Errorf("isDateFormat(%q) = %v, want %v", code, got, want)
		}
	}
}

func TestParquetFooter(t *testing.T) {
	// testdata/sample.parquet was written by parquet-go: 1234 rows of
	// int64, string, double, boolean, DATE, TIMESTAMP(ms) and an optional string.
	p, err := Peek("testdata/sample.parquet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != Parquet || p.RowCount != 1234 || p.RowCountKind != CountExact {
		t.Fatalf("%s %d %s %q", p.Format, p.RowCount, p.RowCountKind, p.Problems)
	}
	if got := types(p); got != "id:int name:text price:float in_stock:bool day:date at:datetime note:text" {
		t.Fatalf("types %s", got)
	}
	st, _ := os.Stat("testdata/sample.parquet")
	if p.ReadBytes >= st.Size()/2 || len(p.Problems) != 0 || p.Note == "" {
		t.Fatalf("read %d of %d, problems %q", p.ReadBytes, st.Size(), p.Problems)
	}
}

func TestParquetDamaged(t *testing.T) {
	data, err := os.ReadFile("testdata/sample.parquet")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Peek(write(t, "cut.parquet", data[:len(data)/2]), Options{})
	if p.Format != Parquet || !hasProblem(p, "no footer") {
		t.Fatalf("cut: %+v", p.Problems)
	}
	// A footer whose metadata is garbage.
	bad := append([]byte{}, data...)
	n := len(bad)
	for i := n - 8 - 200; i < n-8; i++ {
		bad[i] = 0xff
	}
	p, _ = Peek(write(t, "bad.parquet", bad), Options{})
	if !hasProblem(p, "damaged") {
		t.Fatalf("garbage: %+v", p.Problems)
	}
}
