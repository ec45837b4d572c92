package dataset

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
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
