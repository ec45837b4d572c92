package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"rehome/backend/bytesize"
	"rehome/backend/ipynb"
	"strings"
)

// Export of a session: its cells with their outputs as a Jupyter notebook
// (nbformat 4: streams, execute_result, display_data with PNG plots
// embedded, errors with their traceback) or as a plain Python file.

// nbCell is one cell of an nbformat 4 notebook.
type nbCell struct {
	CellType       string         `json:"cell_type"`
	ExecutionCount *int           `json:"execution_count"`
	ID             string         `json:"id"`
	Metadata       map[string]any `json:"metadata"`
	Outputs        []any          `json:"outputs"`
	Source         []string       `json:"source"`
}

// WriteNotebook writes cells as an nbformat 4.5 notebook.
func WriteNotebook(w io.Writer, cells []CellResult) error {
	budget := &plotBudget{left: maxNotebookPlots}
	out := make([]nbCell, 0, len(cells))
	for _, c := range cells {
		out = append(out, notebookCell(c, budget))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(ipynb.Document(out))
}

// notebookCell is one cell as a notebook's code cell: its streams, its
// displays and plots (within the budget), its traceback as an error, and
// what rehome says of a lost state.
func notebookCell(c CellResult, budget *plotBudget) nbCell {
	n := c.Cell
	cell := nbCell{CellType: "code", ExecutionCount: &n, ID: fmt.Sprintf("cell-%d", n),
		Metadata: map[string]any{}, Outputs: []any{}, Source: ipynb.Lines(c.Code)}
	stderr, tb := c.Stderr, ""
	if c.Status == "error" || c.Status == "interrupted" {
		if i := strings.LastIndex(stderr, "Traceback (most recent call last):"); i >= 0 {
			stderr, tb = stderr[:i], stderr[i:]
		}
	}
	if c.Stdout != "" {
		cell.Outputs = append(cell.Outputs, map[string]any{"output_type": "stream", "name": "stdout", "text": ipynb.Lines(c.Stdout)})
	}
	if stderr != "" {
		cell.Outputs = append(cell.Outputs, nbStderr(stderr))
	}
	shown := map[string]bool{}
	for _, d := range c.Displays {
		data := map[string]any{}
		switch d.Kind {
		case "image":
			png, why := budget.png(c.Files, d.File)
			if png == "" {
				if why != "" {
					cell.Outputs = append(cell.Outputs, nbStderr("rehome: "+why+"\n"))
				}
				shown[d.File] = true
				continue
			}
			shown[d.File] = true
			data["image/png"] = png
			data["text/plain"] = []string{"<Figure>"}
		case "table":
			data["text/html"] = ipynb.Lines(tableHTML(d))
			data["text/plain"] = ipynb.Lines(d.Text)
		default:
			data["text/plain"] = ipynb.Lines(d.Text)
		}
		if d.Result {
			cell.Outputs = append(cell.Outputs, map[string]any{"output_type": "execute_result", "execution_count": n, "data": data, "metadata": map[string]any{}})
		} else {
			cell.Outputs = append(cell.Outputs, map[string]any{"output_type": "display_data", "data": data, "metadata": map[string]any{}})
		}
	}
	for _, f := range c.Files {
		if f.Kind != "plot" || shown[f.Name] {
			continue
		}
		if png, why := budget.png(c.Files, f.Name); png != "" {
			cell.Outputs = append(cell.Outputs, map[string]any{"output_type": "display_data",
				"data": map[string]any{"image/png": png, "text/plain": []string{"<Figure>"}}, "metadata": map[string]any{}})
		} else if why != "" {
			cell.Outputs = append(cell.Outputs, nbStderr("rehome: "+why+"\n"))
		}
	}
	if tb != "" {
		lines := strings.Split(strings.TrimRight(tb, "\n"), "\n")
		last := lines[len(lines)-1]
		ename, evalue, _ := strings.Cut(last, ": ")
		cell.Outputs = append(cell.Outputs, map[string]any{"output_type": "error", "ename": ename, "evalue": evalue, "traceback": lines})
	}
	if c.StateLost || c.Status == "killed" || c.Status == "died" {
		cell.Outputs = append(cell.Outputs, nbStderr("rehome: "+c.Summary+"\n"))
	}
	return cell
}

// nbStderr is a stderr stream output of text.
func nbStderr(text string) map[string]any {
	return map[string]any{"output_type": "stream", "name": "stderr", "text": ipynb.Lines(text)}
}

// A notebook is written whole, its plots inside it as base64: the plots
// a session's code made (outside bytes: the code is not the user's to
// trust) are embedded up to these bounds, and the rest named with where
// their files are.
const (
	// maxNotebookPlot is the largest plot a notebook embeds.
	maxNotebookPlot = 8 << 20
	// maxNotebookPlots bounds the plots one notebook embeds, together.
	maxNotebookPlots = 64 << 20
)

// plotBudget is what is left of maxNotebookPlots in one notebook.
type plotBudget struct{ left int64 }

// png is a plot's PNG as base64, read from where it was saved; "" and
// why when it is over a bound ("" and "" when there is no such plot).
func (b *plotBudget) png(files []File, name string) (string, string) {
	for _, f := range files {
		if f.Name != name || f.Kind != "plot" {
			continue
		}
		st, err := os.Stat(f.Path)
		if err != nil || !st.Mode().IsRegular() {
			return "", ""
		}
		switch {
		case st.Size() > maxNotebookPlot:
			return "", fmt.Sprintf("the plot %s (%s) is larger than a notebook embeds (%s): its file is %s", name, bytesize.Format(st.Size()), bytesize.Format(maxNotebookPlot), f.Path)
		case st.Size() > b.left:
			return "", fmt.Sprintf("the plot %s (%s) is past the %s of plots one notebook embeds: its file is %s", name, bytesize.Format(st.Size()), bytesize.Format(maxNotebookPlots), f.Path)
		}
		data, err := os.ReadFile(f.Path)
		if err != nil || int64(len(data)) > b.left {
			return "", ""
		}
		b.left -= int64(len(data))
		return base64.StdEncoding.EncodeToString(data), ""
	}
	return "", ""
}

// tableHTML renders a shown DataFrame as an HTML table, every cell escaped.
func tableHTML(d Display) string {
	var b strings.Builder
	b.WriteString("<table border=\"1\" class=\"dataframe\">\n<thead><tr><th></th>")
	for _, c := range d.Columns {
		b.WriteString("<th>" + html.EscapeString(c) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for i, r := range d.Rows {
		b.WriteString("<tr><th>")
		if i < len(d.Index) {
			b.WriteString(html.EscapeString(d.Index[i]))
		}
		b.WriteString("</th>")
		for _, v := range r {
			b.WriteString("<td>" + html.EscapeString(v) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>")
	if len(d.Shape) == 2 {
		fmt.Fprintf(&b, "\n<p>%d rows × %d columns</p>", d.Shape[0], d.Shape[1])
	}
	return b.String()
}

// WritePython writes cells as a plain Python file, one "# %%" cell marker
// (the percent format editors understand) per cell.
func WritePython(w io.Writer, cells []CellResult) error {
	var b strings.Builder
	b.WriteString("# Exported from a rehome Code Interpreter session.\n")
	for _, c := range cells {
		fmt.Fprintf(&b, "\n# %%%% In[%d]\n", c.Cell)
		b.WriteString(c.Code)
		if !strings.HasSuffix(c.Code, "\n") {
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
