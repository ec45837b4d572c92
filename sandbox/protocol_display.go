package sandbox

import (
	"encoding/json"
	"fmt"
	"strings"

	"rehome/backend/bytesize"
)

// Caps on the values a run shows (Result.Displays).
const (
	maxDisplays     = 100
	maxDisplayBytes = 512 << 10
)

// openDisplay starts receiving a shown value, kept in memory within caps.
func (c *collector) openDisplay(in *incoming) error {
	in.kind = "display"
	switch {
	case len(c.displays) >= maxDisplays:
		in.discard = fmt.Sprintf("over the cap of %d shown values", maxDisplays)
	case in.size > maxDisplayBytes:
		in.discard = fmt.Sprintf("a shown value over %s", bytesize.Format(maxDisplayBytes))
	default:
		in.display = make([]byte, 0, in.size)
	}
	if in.left == 0 {
		return c.finishFile()
	}
	return nil
}

// finishDisplay checks a shown value as the container sent it: known kinds
// only, text made printable, tables bounded.
func (c *collector) finishDisplay(data []byte) {
	var d Display
	if err := json.Unmarshal(data, &d); err != nil {
		c.skip("display", "a shown value that is not valid JSON")
		return
	}
	clean := Display{Kind: d.Kind, Text: strings.ToValidUTF8(d.Text, "\uFFFD"), Result: d.Result}
	switch d.Kind {
	case "text":
	case "table":
		const maxRows, maxCols = 200, 100
		cell := func(s string) string { return printable(s, 300) }
		for i, col := range d.Columns {
			if i >= maxCols {
				break
			}
			clean.Columns = append(clean.Columns, cell(col))
		}
		for i, row := range d.Rows {
			if i >= maxRows {
				break
			}
			r := make([]string, 0, min(len(row), maxCols))
			for j, v := range row {
				if j >= maxCols {
					break
				}
				r = append(r, cell(v))
			}
			clean.Rows = append(clean.Rows, r)
			if i < len(d.Index) {
				clean.Index = append(clean.Index, cell(d.Index[i]))
			}
		}
		if len(d.Shape) == 2 {
			clean.Shape = d.Shape
		}
	case "image":
		name, _, err := safeName(d.File)
		if err != nil {
			c.skip("display", "a shown image with a bad name")
			return
		}
		clean.File = name
	default:
		c.skip("display", "a shown value of an unknown kind")
		return
	}
	c.displays = append(c.displays, clean)
}
