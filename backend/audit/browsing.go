package audit

import (
	"regexp"
	"strings"
)

// Browsing is what this machine browses with, as the audit reasons about
// web browsing: the carried Kiwix libraries and the search engine set
// (core.Browse says; Options.Browsing hands it over).
type Browsing struct {
	// Libraries are the carried libraries' titles.
	Libraries []string `json:"libraries,omitempty"`
	// Engine names the search engine ("SearXNG at …", "Brave Search"; ""
	// none).
	Engine string `json:"engine,omitempty"`
}

// zimFor are the Kiwix ZIMs (library.kiwix.org's names) that fit a GPT's
// subject, by the words that say it, first match first; Wikipedia's is
// the rest's.
var zimFor = []struct {
	words *regexp.Regexp
	zim   string
	what  string
}{
	{regexp.MustCompile(`(?i)\b(python|javascript|typescript|golang|rust|java|programming|coding|code review|developer|software|api|sql|css|html)\b`), "stackoverflow.com_en_all", "Stack Overflow"},
	{regexp.MustCompile(`(?i)\b(medic\w*|health|clinic\w*|doctor|nurs\w+|symptom\w*|disease\w*|drug\w*|pharma\w*)\b`), "wikipedia_en_medicine_maxi", "WikiMed, Wikipedia's medical articles"},
	{regexp.MustCompile(`(?i)\b(travel\w*|trip|itinerar\w+|touris\w+|destination\w*)\b`), "wikivoyage_en_all_maxi", "Wikivoyage"},
	{regexp.MustCompile(`(?i)\b(dictionary|definition\w*|etymolog\w+|vocabulary|synonym\w*|spelling)\b`), "wiktionary_en_all_maxi", "Wiktionary"},
	{regexp.MustCompile(`(?i)\b(cook\w*|recipe\w*|baking|kitchen|cuisine)\b`), "cooking.stackexchange.com_en_all", "Seasoned Advice (cooking.stackexchange.com)"},
	{regexp.MustCompile(`(?i)\b(math\w*|algebra|calculus|geometry|statistic\w*|proof\w*)\b`), "math.stackexchange.com_en_all", "Mathematics Stack Exchange"},
	{regexp.MustCompile(`(?i)\b(literature|novel\w*|poem\w*|poetry|classic books?|gutenberg)\b`), "gutenberg_en_all", "Project Gutenberg's books"},
	{regexp.MustCompile(`(?i)\b(linux|unix|shell|bash|sysadmin|server\w*|devops)\b`), "unix.stackexchange.com_en_all", "Unix & Linux Stack Exchange"},
}

// wikipediaZIM is the library to carry when the subject says nothing
// more specific.
const wikipediaZIM = "wikipedia_en_all_maxi"

// SuggestZIM names the Kiwix ZIM to carry for a GPT whose name and
// instructions are text, and what it is.
func SuggestZIM(text string) (zim, what string) {
	for _, z := range zimFor {
		if z.words.MatchString(text) {
			return z.zim, z.what
		}
	}
	return wikipediaZIM, "Wikipedia"
}

// zimWords is the sentence the audit says for the ZIM to carry.
func zimWords(s Subject) string {
	zim, what := s.ZIM, s.ZIMWhat
	if zim == "" {
		zim, what = SuggestZIM(s.Name)
	}
	return what + " (" + zim + "_<date>.zim from library.kiwix.org)"
}

func joinOr(ss []string, none string) string {
	if len(ss) == 0 {
		return none
	}
	return strings.Join(ss, ", ")
}
