package canvas

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// ChatGPT's canmore updates: a whole rewrite with ".*", a targeted
// replacement (the first match, or every one), Python's group syntax,
// a pattern that matches nothing (nothing changes), a bad pattern; the
// user's edit; versions, diff and restore; comments.
func TestUpdatesVersionsRestore(t *testing.T) {
	d, err := New("d1", "Trip plan", "document", "# Trip\n\nDay 1: Paris.\nDay 2: Paris.\n", "model")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Apply([]Update{{Pattern: "Paris", Replacement: "Lyon"}}, "model"); err != nil || d.Content != "# Trip\n\nDay 1: Lyon.\nDay 2: Paris.\n" {
		t.Fatalf("first match: %q %v", d.Content, err)
	}
	if err := d.Apply([]Update{{Pattern: `Day (\d): (\w+)`, Multiple: true, Replacement: `Day \1 in \g<2>`}}, "model"); err != nil || d.Content != "# Trip\n\nDay 1 in Lyon.\nDay 2 in Paris.\n" {
		t.Fatalf("groups: %q %v", d.Content, err)
	}
	before := d.Content
	if err := d.Apply([]Update{{Pattern: "Berlin", Replacement: "x"}}, "model"); !errors.Is(err, ErrNoMatch) || d.Content != before {
		t.Fatalf("no match: %v", err)
	}
	if err := d.Apply([]Update{{Pattern: `(?<=Day) 1`, Replacement: "x"}}, "model"); !errors.Is(err, ErrBadPattern) {
		t.Fatalf("look-behind: %v", err)
	}
	if err := d.Edit("# Trip\n\nDay 1 in Lyon, with $5.\n"); err != nil {
		t.Fatal(err)
	}
	if err := d.Apply([]Update{{Pattern: ".*", Replacement: "# Trip\n\nRewritten costs $10.\n"}}, "model"); err != nil || d.Content != "# Trip\n\nRewritten costs $10.\n" {
		t.Fatalf("rewrite: %q", d.Content)
	}
	if n := len(d.Versions); n != 5 || d.Versions[3].By != "user" || d.Versions[4].By != "model" {
		t.Fatalf("versions %+v", d.Versions)
	}
	diff, err := d.Diff(1, 5)
	if err != nil || !strings.Contains(diff, "-Day 1: Paris.") || !strings.Contains(diff, "+Rewritten costs $10.") || !strings.Contains(diff, "Trip plan (version 1)") {
		t.Fatalf("diff %q %v", diff, err)
	}
	if err := d.Restore(1); err != nil || d.Content != "# Trip\n\nDay 1: Paris.\nDay 2: Paris.\n" || d.Versions[5].By != "restore" {
		t.Fatalf("restore: %q %v", d.Content, err)
	}
	if err := d.Restore(99); !errors.Is(err, ErrNoVersion) {
		t.Fatal(err)
	}
	if err := d.AddComments([]Comment{{Pattern: "Day 2", Comment: "Say which museum."}}); err != nil || d.Comments[0].Quote != "Day 2" {
		t.Fatalf("comment: %+v %v", d.Comments, err)
	}
}

// Bounds: a textdoc over MaxBytes, versions kept within MaxVersionBytes
// (the first kept), a bad type.
func TestBounds(t *testing.T) {
	if _, err := New("x", "big", "document", strings.Repeat("a", MaxBytes+1), "model"); !errors.Is(err, ErrTooLarge) {
		t.Fatal(err)
	}
	if _, err := New("x", "x", "spreadsheet", "", "model"); err == nil {
		t.Fatal("a bad type")
	}
	d, _ := New("x", "grow", "code/python", "first = 1\n", "model")
	for i := 0; i < 20; i++ {
		if err := d.Edit(strings.Repeat("x", 200<<10) + string(rune('a'+i))); err != nil {
			t.Fatal(err)
		}
	}
	if versionBytes(d.Versions) > MaxVersionBytes+MaxBytes || d.Versions[0].Content != "first = 1\n" || d.Versions[len(d.Versions)-1].N != 21 {
		t.Fatalf("%d versions, %d bytes", len(d.Versions), versionBytes(d.Versions))
	}
}

// Exports: .md, .py, and a notebook that Jupyter reads (nbformat 4,
// source lines keeping their newlines); a name made safe.
func TestExport(t *testing.T) {
	code, _ := New("c", "../etc/Sales model", "code/python", "import pandas as pd\nprint(1)\n", "model")
	doc, _ := New("d", "Notes", "document", "# Notes\n", "model")
	if code.FileName("") != "etc_Sales model.py" || doc.FileName("") != "Notes.md" || code.FileName("ipynb") != "etc_Sales model.ipynb" {
		t.Fatalf("names %q %q", code.FileName(""), doc.FileName(""))
	}
	raw, err := code.Export("ipynb")
	var nb struct {
		NBFormat int `json:"nbformat"`
		Cells    []struct {
			CellType string   `json:"cell_type"`
			Source   []string `json:"source"`
		}
	}
	if err != nil || json.Unmarshal(raw, &nb) != nil || nb.NBFormat != 4 || nb.Cells[0].CellType != "code" || strings.Join(nb.Cells[0].Source, "|") != "import pandas as pd\n|print(1)\n" {
		t.Fatalf("notebook %s %v", raw, err)
	}
	if raw, _ := doc.Export("ipynb"); !strings.Contains(string(raw), `"cell_type": "markdown"`) {
		t.Fatal(string(raw))
	}
}
