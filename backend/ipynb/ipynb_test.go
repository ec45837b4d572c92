package ipynb

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Jupyter's lines keep their newline; joined back they are the text.
func TestLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"x = 1", []string{"x = 1"}},
		{"a\nb", []string{"a\n", "b"}},
		{"a\nb\n", []string{"a\n", "b\n"}},
		{"\n\n", []string{"\n", "\n"}},
	} {
		got := Lines(c.in)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Lines(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.Join(got, "") != c.in {
			t.Errorf("Lines(%q) joined is %q", c.in, strings.Join(got, ""))
		}
	}
}

// The envelope is what Jupyter reads as nbformat 4.5 with a Python kernel.
func TestDocument(t *testing.T) {
	b, err := json.Marshal(Document([]map[string]any{{"cell_type": "markdown", "source": Lines("# hi\n")}}))
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		NBFormat      int `json:"nbformat"`
		NBFormatMinor int `json:"nbformat_minor"`
		Metadata      struct {
			Kernelspec struct{ Name string } `json:"kernelspec"`
		} `json:"metadata"`
		Cells []map[string]any `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	if nb.NBFormat != 4 || nb.NBFormatMinor != 5 || nb.Metadata.Kernelspec.Name != "python3" || len(nb.Cells) != 1 {
		t.Fatalf("notebook %s", b)
	}
}
