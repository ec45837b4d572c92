package dataset

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"strconv"
	"strings"
	"time"
)

// Bounds on what a workbook preview decompresses.
const (
	xlsxPartMax    = 16 << 20 // bytes read from workbook.xml, styles.xml, sharedStrings.xml
	xlsxSheetMax   = 64 << 20 // bytes of sheet XML read for the rows sampled
	xlsxStringsMax = 200_000  // shared strings kept
	xlsxSampleRows = 500      // rows read for the preview and the types
)

// peekXLSX previews the first worksheet of an Excel workbook; a zip
// holding a single CSV or JSON file is previewed as that file.
func peekXLSX(p *Preview, f file, o Options) {
	zr, err := zip.NewReader(f, p.Size)
	if err != nil {
		p.Format = Binary
		p.Problems = append(p.Problems, "This is a damaged or unfinished zip archive ("+err.Error()+"). If it is an Excel workbook, open it in Excel or LibreOffice and save it again.")
		return
	}
	parts := map[string]*zip.File{}
	for _, zf := range zr.File {
		parts[zf.Name] = zf
	}
	if parts["xl/workbook.xml"] == nil {
		peekZipped(p, zr, o)
		return
	}
	p.Format = XLSX
	p.Header = true
	defer func() { p.ReadBytes = min(p.Size, p.ReadBytes) }()

	sheets, target, err := firstSheet(parts)
	if err != nil {
		p.Problems = append(p.Problems, "The workbook's list of sheets cannot be read ("+err.Error()+"). Open it in Excel or LibreOffice and save it again.")
		return
	}
	p.Sheets = sheets
	p.Sheet = sheets[0]
	if len(sheets) > 1 {
		p.Note = fmt.Sprintf("The workbook has %d sheets; the preview shows the first, “%s”. In code, pick another with pd.read_excel(path, sheet_name=…).", len(sheets), sheets[0])
	}
	strs, cut := sharedStrings(parts["xl/sharedStrings.xml"])
	dates := dateStyles(parts["xl/styles.xml"])
	sheet := parts[target]
	if sheet == nil {
		p.Problems = append(p.Problems, "The workbook names a first sheet ("+target+") that is not in the file. Open it in Excel or LibreOffice and save it again.")
		return
	}
	records, dim, err := sheetRows(sheet, strs, dates, xlsxSampleRows+1)
	for _, zf := range []*zip.File{parts["xl/workbook.xml"], parts["xl/sharedStrings.xml"], parts["xl/styles.xml"], sheet} {
		if zf != nil {
			p.ReadBytes += int64(zf.CompressedSize64)
		}
	}
	if err != nil {
		p.Problems = append(p.Problems, "The first sheet cannot be read completely ("+err.Error()+"); the rows before the damage are shown.")
	}
	if cut {
		p.Problems = append(p.Problems, "The workbook has more distinct texts than the preview keeps; some cells show as empty here but are read by code.")
	}
	if len(records) == 0 {
		p.RowCountKind = CountExact
		p.Problems = append(p.Problems, "The first sheet, “"+p.Sheet+"”, is empty.")
		return
	}
	var names []string
	var data [][]string
	p.Header, names, data = splitHeader(records)
	showTable(p, names, data, o, "sheet")
	switch {
	case len(records) <= xlsxSampleRows:
		p.RowCount, p.RowCountKind = int64(len(data)), CountExact
	case dim > 0:
		p.RowCount, p.RowCountKind = int64(dim), CountEstimate
		if p.Header {
			p.RowCount--
		}
	default:
		p.RowCount, p.RowCountKind = int64(len(data)), CountAtLeast
	}
}

// peekZipped previews a zip archive that holds one data file, which
// pandas reads directly (pd.read_csv("data.zip")).
func peekZipped(p *Preview, zr *zip.Reader, o Options) {
	var files []*zip.File
	for _, zf := range zr.File {
		if !strings.HasSuffix(zf.Name, "/") && !strings.HasPrefix(path.Base(zf.Name), ".") && !strings.HasPrefix(zf.Name, "__MACOSX/") {
			files = append(files, zf)
		}
	}
	if len(files) != 1 {
		p.Format = Binary
		p.Problems = append(p.Problems, fmt.Sprintf("This is a zip archive with %d files, not a data file. Unzip it and drop the CSV, Excel or JSON file you want to analyse.", len(files)))
		return
	}
	zf := files[0]
	rc, err := zf.Open()
	if err != nil {
		p.Format = Binary
		p.Problems = append(p.Problems, "The zip archive cannot be opened ("+err.Error()+"). Unzip it and drop the file inside.")
		return
	}
	defer rc.Close()
	p.Compression = "zip"
	head, complete := readHead(rc, o)
	peekText(p, head, complete, strings.ToLower(path.Ext(zf.Name)), o)
	p.ReadBytes = min(p.Size, int64(zf.CompressedSize64))
	if p.Note == "" {
		p.Note = "The archive holds " + zf.Name + "; pandas reads it straight from the zip."
	}
	if complete && p.RowCountKind == CountEstimate {
		p.RowCountKind = CountExact
	}
	if !complete && p.RowCountKind == CountEstimate && zf.UncompressedSize64 > 0 {
		// The estimate used the zip's size; scale to the file inside.
		p.RowCount = int64(float64(p.RowCount) * float64(zf.UncompressedSize64) / float64(p.Size))
	}
}

// firstSheet returns the sheet names in workbook order and the zip path of
// the first one.
func firstSheet(parts map[string]*zip.File) (names []string, target string, err error) {
	var wb struct {
		Sheets []struct {
			Name string `xml:"name,attr"`
			RID  string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sheets>sheet"`
	}
	if err := decodePart(parts["xl/workbook.xml"], &wb); err != nil {
		return nil, "", err
	}
	if len(wb.Sheets) == 0 {
		return nil, "", errors.New("it lists no sheets")
	}
	for _, s := range wb.Sheets {
		names = append(names, s.Name)
	}
	target = "xl/worksheets/sheet1.xml"
	var rels struct {
		Rels []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if zf := parts["xl/_rels/workbook.xml.rels"]; zf != nil && decodePart(zf, &rels) == nil {
		for _, r := range rels.Rels {
			if r.ID == wb.Sheets[0].RID {
				if strings.HasPrefix(r.Target, "/") {
					target = strings.TrimPrefix(r.Target, "/")
				} else {
					target = path.Join("xl", r.Target)
				}
			}
		}
	}
	return names, target, nil
}

func decodePart(zf *zip.File, v any) error {
	if zf == nil {
		return errors.New("a part is missing")
	}
	rc, err := zf.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	return xml.NewDecoder(io.LimitReader(rc, xlsxPartMax)).Decode(v)
}

// sharedStrings streams the workbook's shared string table, keeping at
// most xlsxStringsMax entries; cut reports that some were left out.
func sharedStrings(zf *zip.File) (strs []string, cut bool) {
	if zf == nil {
		return nil, false
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, false
	}
	defer rc.Close()
	dec := xml.NewDecoder(io.LimitReader(rc, xlsxPartMax))
	var cur strings.Builder
	inSI, inT, inRPh := false, false, false
	for {
		tok, err := dec.Token()
		if err != nil {
			return strs, err != io.EOF
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "si":
				inSI = true
				cur.Reset()
			case "t":
				inT = true
			case "rPh": // phonetic runs are not part of the value
				inRPh = true
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "si":
				inSI = false
				strs = append(strs, cur.String())
				if len(strs) >= xlsxStringsMax {
					return strs, true
				}
			case "t":
				inT = false
			case "rPh":
				inRPh = false
			}
		case xml.CharData:
			if inSI && inT && !inRPh {
				cur.Write(t)
			}
		}
	}
}

// dateStyles returns, per cell style index, whether its number format
// shows a date or time.
func dateStyles(zf *zip.File) []bool {
	var st struct {
		NumFmts []struct {
			ID   int    `xml:"numFmtId,attr"`
			Code string `xml:"formatCode,attr"`
		} `xml:"numFmts>numFmt"`
		Xfs []struct {
			NumFmtID int `xml:"numFmtId,attr"`
		} `xml:"cellXfs>xf"`
	}
	if decodePart(zf, &st) != nil {
		return nil
	}
	custom := map[int]bool{}
	for _, f := range st.NumFmts {
		custom[f.ID] = isDateFormat(f.Code)
	}
	out := make([]bool, len(st.Xfs))
	for i, x := range st.Xfs {
		id := x.NumFmtID
		if d, ok := custom[id]; ok {
			out[i] = d
		} else {
			out[i] = (id >= 14 && id <= 22) || (id >= 45 && id <= 47)
		}
	}
	return out
}

// isDateFormat reports whether an Excel number format code shows a date
// or time: it has d, m, y, h or s outside quotes, escapes and brackets.
func isDateFormat(code string) bool {
	quoted, bracket := false, false
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '\\' || c == '_' || c == '*':
			i++
		case c == '[':
			bracket = true
		case c == ']':
			bracket = false
		case bracket:
		case strings.IndexByte("dmyhsDMYHS", c) >= 0:
			return true
		}
	}
	return false
}

// sheetRows streams up to max rows of a worksheet as text cells. dim is
// the row count the sheet declares (0 when it does not).
func sheetRows(zf *zip.File, strs []string, dates []bool, limit int) (rows [][]string, dim int, err error) {
	rc, err := zf.Open()
	if err != nil {
		return nil, 0, err
	}
	defer rc.Close()
	dec := xml.NewDecoder(io.LimitReader(rc, xlsxSheetMax))
	sr := &sheetReader{strs: strs, dates: dates, limit: limit, nextRow: 1}
	for {
		tok, terr := dec.Token()
		if terr == io.EOF {
			break
		}
		if terr != nil {
			return sr.rows, sr.dim, terr
		}
		switch t := tok.(type) {
		case xml.StartElement:
			sr.start(t)
		case xml.EndElement:
			if sr.end(t) {
				return padRows(sr.rows, sr.width), sr.dim, nil
			}
		case xml.CharData:
			if sr.inRow && sr.inV {
				sr.val.Write(t)
			}
		}
	}
	return padRows(sr.rows, sr.width), sr.dim, nil
}

// sheetReader is a worksheet's XML as it is read: the rows so far (up to
// limit) and the row and cell being read.
type sheetReader struct {
	strs  []string // the shared strings
	dates []bool   // by style: whether a number is a date
	limit int

	rows              [][]string
	dim               int // the rows the sheet's dimension says
	width             int
	nextRow           int
	row               []string
	inRow, inV, inIS  bool
	cellType, cellRef string
	cellStyle         int
	val               strings.Builder
}

// start reads an element's start: a row (the blank rows before it kept
// inside the table, as pandas keeps them as NaN), a cell, its value.
func (sr *sheetReader) start(t xml.StartElement) {
	switch t.Name.Local {
	case "dimension":
		sr.dim = dimensionRows(attr(t, "ref"))
	case "row":
		sr.inRow = true
		sr.row = sr.row[:0:0]
		if r, err := strconv.Atoi(attr(t, "r")); err == nil && r > sr.nextRow && len(sr.rows) > 0 {
			for ; sr.nextRow < r && len(sr.rows) < sr.limit; sr.nextRow++ {
				sr.rows = append(sr.rows, []string{}) // pandas keeps blank rows inside the table as NaN
			}
		}
	case "c":
		sr.cellType, sr.cellRef = attr(t, "t"), attr(t, "r")
		sr.cellStyle, _ = strconv.Atoi(attr(t, "s"))
		sr.val.Reset()
	case "v":
		sr.inV = true
	case "is":
		sr.inIS = true
	case "t":
		if sr.inIS {
			sr.inV = true
		}
	}
}

// end reads an element's end: a cell's text goes into its column, a row
// into the rows (leading blank rows skipped, as pandas does). It says
// whether limit rows are read.
func (sr *sheetReader) end(t xml.EndElement) bool {
	switch t.Name.Local {
	case "v":
		sr.inV = false
	case "t":
		if sr.inIS {
			sr.inV = false
		}
	case "is":
		sr.inIS = false
	case "c":
		col := len(sr.row)
		if c, ok := columnIndex(sr.cellRef); ok {
			col = c
		}
		if col < 16384 {
			for len(sr.row) <= col {
				sr.row = append(sr.row, "")
			}
			sr.row[col] = cellText(sr.cellType, sr.val.String(), sr.cellStyle, sr.strs, sr.dates)
		}
	case "row":
		sr.inRow = false
		if len(sr.rows) == 0 && allEmpty(sr.row) {
			sr.nextRow++
			return false // leading blank rows are skipped, as pandas does
		}
		sr.width = max(sr.width, len(sr.row))
		sr.rows = append(sr.rows, sr.row)
		sr.nextRow++
		return len(sr.rows) >= sr.limit
	}
	return false
}

func padRows(rows [][]string, width int) [][]string {
	for i, r := range rows {
		for len(r) < width {
			r = append(r, "")
		}
		rows[i] = r
	}
	return rows
}

func allEmpty(r []string) bool {
	for _, c := range r {
		if c != "" {
			return false
		}
	}
	return true
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// columnIndex turns a cell reference such as "AB12" into its column (27).
func columnIndex(ref string) (int, bool) {
	col := 0
	i := 0
	for ; i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z'; i++ {
		col = col*26 + int(ref[i]-'A'+1)
	}
	if i == 0 {
		return 0, false
	}
	return col - 1, true
}

// dimensionRows reads the row count from a dimension such as "A1:F1000".
func dimensionRows(ref string) int {
	a, b, ok := strings.Cut(ref, ":")
	if !ok {
		return 0
	}
	row := func(s string) int {
		n, _ := strconv.Atoi(strings.TrimLeft(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ$"))
		return n
	}
	if r1, r2 := row(a), row(b); r1 > 0 && r2 >= r1 {
		return r2 - r1 + 1
	}
	return 0
}

// cellText renders a cell's value the way pandas shows it.
func cellText(typ, v string, style int, strs []string, dates []bool) string {
	switch typ {
	case "s":
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 || i >= len(strs) {
			return ""
		}
		return strs[i]
	case "b":
		if v == "1" {
			return "true"
		}
		return "false"
	case "inlineStr", "str", "e":
		return v
	}
	if style >= 0 && style < len(dates) && dates[style] {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return excelDate(f)
		}
	}
	// Whole numbers stored as 3.0 show as 3, as in Excel.
	return strings.TrimSuffix(v, ".0")
}

// excelDate turns an Excel serial day number (1900 date system) into an
// ISO date, with the time when it has one.
func excelDate(serial float64) string {
	if serial < 0 || serial > 2958465 {
		return strconv.FormatFloat(serial, 'f', -1, 64)
	}
	base := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	days := math.Floor(serial)
	secs := math.Round((serial - days) * 86400)
	t := base.AddDate(0, 0, int(days)).Add(time.Duration(secs) * time.Second)
	if secs == 0 {
		return t.Format("2006-01-02")
	}
	if days == 0 {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04:05")
}
