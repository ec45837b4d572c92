package knowledge_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/backend/core"
	"rehome/backend/knowledge"
	"rehome/sandbox"
)

func needPodman(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("podman"); err != nil {
		if os.Getenv("REHOME_REQUIRE_PODMAN") == "1" {
			t.Fatalf("real-Podman test cannot run: %v", err)
		}
		t.Skip("no podman here; set REHOME_REQUIRE_PODMAN=1 to make this a failure")
	}
}

// simplePDF writes a PDF whose pages each show one line of text (a page
// with "" draws a filled box and no text: a scan without a text layer).
func simplePDF(pages ...string) []byte {
	var b bytes.Buffer
	var offs []int
	obj := func(s string) {
		offs = append(offs, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offs), s)
	}
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	n := len(pages)
	kids := []string{}
	for i := range pages {
		kids = append(kids, fmt.Sprintf("%d 0 R", 4+2*i))
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i, text := range pages {
		content := "0.5 g 72 600 300 100 re f"
		if text != "" {
			content = fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
		}
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, xref)
	return b.Bytes()
}

func zipOf(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for name, data := range files {
		w, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func slideXML(lines ...string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cSld><p:spTree>`)
	for _, l := range lines {
		fmt.Fprintf(&b, `<p:sp><p:txBody><a:p><a:r><a:t>%s</a:t></a:r></a:p></p:txBody></p:sp>`, l)
	}
	b.WriteString(`</p:spTree></p:cSld></p:sld>`)
	return []byte(b.String())
}

// makeOffice writes a DOCX (with headings and a table) and an XLSX with
// python-docx and openpyxl in the sandbox, as a user's Word and Excel
// would have saved them.
func makeOffice(t *testing.T, c *core.Core, dir string) (docx, xlsx string) {
	t.Helper()
	code := `
import docx, openpyxl
d = docx.Document()
d.add_heading("Kettle manual", 1)
d.add_paragraph("Read this first, before you fill the kettle for the first time.")
d.add_heading("Safety", 2)
d.add_paragraph("Never immerse the base in water.")
d.add_heading("Warranty", 2)
d.add_paragraph("The warranty lasts two years from the date of purchase.")
t = d.add_table(rows=2, cols=2)
t.cell(0, 0).text, t.cell(0, 1).text = "part", "cover"
t.cell(1, 0).text, t.cell(1, 1).text = "battery", "six months"
d.save("/mnt/data/manual.docx")
wb = openpyxl.Workbook()
ws = wb.active
ws.title = "Prices"
ws.append(["model", "price"])
ws.append(["K100", 39.5])
ws.append(["K200", 59.0])
wb.save("/mnt/data/prices.xlsx")
`
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := c.Runs().Run(ctx, sandbox.RunRequest{Code: code, OutputDir: dir, Limits: sandbox.Limits{Timeout: 2 * time.Minute}}, "test", nil)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("making the DOCX and XLSX: %v %+v", err, res)
	}
	return filepath.Join(dir, "manual.docx"), filepath.Join(dir, "prices.xlsx")
}

// Real files parsed in the real sandbox keep their pages, slides,
// headings and tables; hostile and broken files get their reason and
// nothing else is lost.
func TestSandboxParsesRealAndHostileFiles(t *testing.T) {
	needPodman(t)
	data, src := t.TempDir(), t.TempDir()
	c := core.New(data, core.Options{})
	if err := c.Open(); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	docx, xlsx := makeOffice(t, c, filepath.Join(src, "made"))
	put := func(name string, data []byte) string {
		p := filepath.Join(src, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pdf := put("manual.pdf", simplePDF("Introduction to the kettle. This manual covers the K100 and the K200 models and their care.",
		"Descale it every four weeks with citric acid; in hard water areas every two weeks.", "The warranty lasts two years from the date of purchase, batteries six months."))
	scan := put("scan.pdf", simplePDF("", ""))
	notPDF := put("report.pdf", []byte("<html>this is a web page saved as .pdf</html>"))
	enc := filepath.Join(src, "secret.pdf")
	if q, err := exec.LookPath("qpdf"); err == nil {
		if out, err := exec.Command(q, "--encrypt", "user-pw", "owner-pw", "256", "--", pdf, enc).CombinedOutput(); err != nil {
			t.Fatalf("qpdf: %v %s", err, out)
		}
	} else {
		t.Fatal("qpdf is missing: `sudo apt-get install qpdf` (build/setup.sh test installs it)")
	}
	pptx := put("deck.pptx", zipOf(t, map[string][]byte{
		"[Content_Types].xml":    []byte(`<?xml version="1.0"?><Types/>`),
		"ppt/slides/slide1.xml":  slideXML("Kettle launch", "The third quarter plan for shops and online sales"),
		"ppt/slides/slide2.xml":  slideXML("Pricing", "The K200 costs 59 euros in shops and 55 euros online from September"),
		"ppt/slides/slide10.xml": slideXML("Appendix", "Contact the kettle team"),
	}))
	// 64 MB of zeros in a few KB: a zip bomb dressed as a DOCX.
	bomb := put("bomb.docx", zipOf(t, map[string][]byte{"[Content_Types].xml": []byte("<Types/>"), "word/document.xml": make([]byte, 64<<20)}))
	page := `<html><head><title>t</title><script>alert("never indexed")</script></head><body>
<h1>Kettle FAQ</h1><p>Answers to the questions people ask most about their kettle.</p>
<h2>Limescale</h2><p>White flakes are limescale, harmless but ugly.</p>
<h2>Noise</h2><p>A hissing sound while heating is normal.</p></body></html>`
	html := put("faq.html", []byte(page))

	k := knowledge.New(filepath.Join(data, "knowledge"), knowledge.Options{Run: c.Runs()})
	defer k.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	res, err := k.Add(ctx, "a1", []string{pdf, scan, notPDF, enc, docx, xlsx, pptx, bomb, html}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ words string }{
		"scan.pdf":   {"no text layer: a scan; OCR is not available"},
		"report.pdf": {"not a PDF although named .pdf"},
		"secret.pdf": {"an encrypted PDF"},
		"bomb.docx":  {"zip bomb"},
	}
	for _, r := range res {
		w, bad := want[r.Name]
		switch {
		case bad && (r.State != knowledge.StateFailed || !strings.Contains(r.Reason, w.words)):
			t.Errorf("%s: %s %q, want %q", r.Name, r.State, r.Reason, w.words)
		case !bad && r.State != knowledge.StateIndexed:
			t.Errorf("%s: %s %q", r.Name, r.State, r.Reason)
		}
		t.Logf("%s", r.Message)
	}
	check := func(q, file string, match func(knowledge.Hit) bool) {
		t.Helper()
		hits, err := k.Search(ctx, "a1", q, "", 3)
		if err != nil || len(hits) == 0 || hits[0].File != file || !match(hits[0]) {
			t.Errorf("search %q: %+v %v", q, hits, err)
		}
	}
	check("warranty two years", "manual.pdf", func(h knowledge.Hit) bool { return h.Page == 3 })
	check("descale every four weeks", "manual.pdf", func(h knowledge.Hit) bool { return h.Page == 2 })
	check("immerse the base in water", "manual.docx", func(h knowledge.Hit) bool { return h.Section == "Kettle manual › Safety" })
	check("battery cover", "manual.docx", func(h knowledge.Hit) bool { return strings.Contains(h.Text, "battery | six months") })
	check("K100 price", "prices.xlsx", func(h knowledge.Hit) bool {
		return h.Section == "sheet Prices" && strings.Contains(h.Text, "model | price\nK100 | 39.5")
	})
	check("K200 costs euros", "deck.pptx", func(h knowledge.Hit) bool { return h.Page == 2 && h.Section == "Pricing" })
	check("contact the kettle team", "deck.pptx", func(h knowledge.Hit) bool { return h.Page == 3 })
	check("white flakes limescale", "faq.html", func(h knowledge.Hit) bool { return h.Section == "Kettle FAQ › Limescale" })
	if hits, _ := k.Search(ctx, "a1", "alert never indexed", "", 3); len(hits) > 0 && strings.Contains(hits[0].Text, "never indexed") {
		t.Errorf("a script's text was indexed: %+v", hits[0])
	}
	files, _ := k.List("a1")
	for _, f := range files {
		if f.Name == "manual.pdf" && (f.Pages != 3 || f.Format != "pdf") {
			t.Errorf("manual.pdf: %+v", f)
		}
		if f.Name == "deck.pptx" && f.Pages != 3 {
			t.Errorf("deck.pptx: %+v", f)
		}
	}
}
