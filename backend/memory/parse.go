package memory

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Parsed is what Parse read out of a pasted list.
type Parsed struct {
	// Texts are the memories, in the list's order, each cleaned.
	Texts []string `json:"texts"`
	// Skipped say which lines were left out and why.
	Skipped []string `json:"skipped"`
}

// listMark is what starts a line of a list: a number ("1.", "12)"), a
// bullet, and ChatGPT's date in brackets ("[2024-04-26]."), as the model
// lists its "Model Set Context" when asked to show its memories.
var listMark = regexp.MustCompile(`^\s*(?:(?:\d{1,5}[.)]|[-*•·–])\s*)?(?:\[\d{4}-\d{2}-\d{2}\]\.?\s*)?`)

// chrome are the lines of ChatGPT's Manage memories dialog that are not
// memories, as a select-all copy of it brings them along (lower case).
var chrome = map[string]bool{
	"manage memories": true, "saved memories": true, "memory": true, "memories": true,
	"delete all": true, "delete all memories": true, "memory full": true, "# model set context": true,
	"model set context": true, "search memories": true, "close": true, "delete": true,
}

// Parse reads memories as ChatGPT shows them — the lines of Settings →
// Personalization → Manage memories copied, one memory a line, or the
// numbered "Model Set Context" list ("1. [2024-04-26]. User loves dogs.")
// the model prints when asked for its memories. Blank lines, the dialog's
// own words and repeats are dropped; a line over MaxChars is left out,
// said in Skipped.
func Parse(text string) (Parsed, error) {
	if len(text) > MaxImportBytes {
		return Parsed{}, fmt.Errorf("%w: %d MiB, at most %d MiB: split it", ErrImportTooLarge, len(text)>>20, MaxImportBytes>>20)
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	out := Parsed{Texts: []string{}, Skipped: []string{}}
	seen := map[string]bool{}
	text = strings.TrimPrefix(text, "\ufeff")
	for i, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || chrome[strings.ToLower(line)] || strings.HasPrefix(strings.ToLower(line), "chatgpt tries to remember") {
			continue
		}
		line = strings.TrimSpace(listMark.ReplaceAllString(line, ""))
		t, err := Clean(line)
		if err != nil {
			if err != ErrEmpty {
				out.Skipped = append(out.Skipped, fmt.Sprintf("line %d: %v", i+1, err))
			}
			continue
		}
		if key := strings.ToLower(t); !seen[key] {
			seen[key] = true
			out.Texts = append(out.Texts, t)
		}
	}
	return out, nil
}
