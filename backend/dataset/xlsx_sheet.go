package dataset

import (
	"archive/zip"
	"encoding/xml"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

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
