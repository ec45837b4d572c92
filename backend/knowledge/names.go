package knowledge

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// listedName is the name a file is listed, searched and cited under: its
// file name in Unicode's composed form (NFC), with every control or
// format character — a newline, a right-to-left override, a zero-width
// space or joiner — and any byte that is not UTF-8 replaced by "_". A
// hostile name then cannot pass for another file's in a citation
// ("guide\u200b.md" beside "guide.md"; "report\u202efdp.md" shown as
// "reportdm.pdf"), nor break the line it is cited on. Every other space
// (a no-break space in "guide\u00a0(2).md", mimicking the suffix rehome
// gives a second guide.md) is a plain one, and spaces at either end go
// ("guide.md " is guide.md, so it becomes guide (2).md). Names that differ
// only by composition ("café" as e + U+0301) are one name, which
// freeName then tells apart as "café (2).md".
func listedName(base string) string {
	name := norm.NFC.String(strings.ToValidUTF8(base, "_"))
	name = strings.Map(func(r rune) rune {
		switch {
		case r == unicode.ReplacementChar || unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return '_'
		case unicode.IsSpace(r):
			return ' '
		}
		return r
	}, name)
	if name = strings.TrimSpace(name); name == "" {
		name = "_"
	}
	return name
}
