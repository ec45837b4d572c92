package audit

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// The ZIM the checklist names for real GPTs of the store (their names
// and descriptions, testdata/gizmo_subjects.jsonl): a language's DevDocs
// for a Python or JavaScript GPT, Wikivoyage for travel, Wikibooks'
// Cookbook for cooking (a chef, a pizza maker, a vegan recipe guide),
// WikiMed for a doctor or first aid, Mathematics Stack Exchange, Unix &
// Linux; Wikipedia for a GPT whose subject says none of these (a music
// "dictionary" is not Wiktionary's).
func TestSuggestZIMRealGPTs(t *testing.T) {
	want := map[int]string{
		2: "wikipedia_en_all_maxi", 11: "devdocs_en_python", 80: "wikivoyage_en_all_maxi", 151: "wikibooks_en_all_maxi",
		180: "unix.stackexchange.com_en_all", 406: "math.stackexchange.com_en_all", 443: "wikipedia_en_all_maxi",
		509: "wikipedia_en_all_maxi", 885: "devdocs_en_javascript", 966: "wikibooks_en_all_maxi", 1063: "devdocs_en_python",
		1350: "wikibooks_en_all_maxi", 1551: "wikipedia_en_medicine_maxi", 1554: "devdocs_en_javascript",
		1657: "wikipedia_en_medicine_maxi", 1783: "wikibooks_en_all_maxi",
	}
	f, err := os.Open("testdata/gizmo_subjects.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var g struct {
			Line    int `json:"line"`
			Display struct{ Name, Description string }
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		zim, what := SuggestZIM(g.Display.Name, g.Display.Description)
		if zim != want[g.Line] || what == "" {
			t.Errorf("%s (%q): %s (%s), want %s", g.Display.Name, g.Display.Description, zim, what, want[g.Line])
		}
		seen++
	}
	if seen != len(want) {
		t.Fatalf("read %d GPTs, want %d", seen, len(want))
	}
}

// The name's subject wins; else what the instructions say most often: a
// cooking GPT told once to answer in HTML is still a cooking GPT.
func TestSuggestZIMWeighsTheInstructions(t *testing.T) {
	for _, c := range []struct{ name, about, want string }{
		{"Kitchen helper", "Answer in HTML.", "wikibooks_en_all_maxi"},
		{"Helper", "Give recipes. Format each recipe as HTML, with the recipe's cooking time.", "wikibooks_en_all_maxi"},
		{"Helper", "Review the user's Python code; cite the Python docs.", "devdocs_en_python"},
		{"Helper", "You write C++ and explain templates.", "devdocs_en_cpp"},
		{"Helper", "Be kind.", "wikipedia_en_all_maxi"},
	} {
		if zim, _ := SuggestZIM(c.name, c.about); zim != c.want {
			t.Errorf("%s / %s: %s, want %s", c.name, c.about, zim, c.want)
		}
	}
}
