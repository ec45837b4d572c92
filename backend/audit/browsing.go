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
// subject, by the words that say it; Wikipedia's is the rest's. A
// language's own DevDocs comes before Stack Overflow (a few MB of the
// language's reference against Stack Overflow's ~75 GB), and Linux before
// code in general.
var zimFor = []struct {
	words *regexp.Regexp
	zim   string
	what  string
}{
	{regexp.MustCompile(`(?i)\b(python\w*|pandas|numpy|django|flask|pep ?8)\b`), "devdocs_en_python", "DevDocs' Python documentation"},
	{regexp.MustCompile(`(?i)\b(typescript)\b`), "devdocs_en_typescript", "DevDocs' TypeScript documentation"},
	{regexp.MustCompile(`(?i)\b(javascript|js|ecmascript|node\.?js)\b`), "devdocs_en_javascript", "DevDocs' JavaScript documentation"},
	{regexp.MustCompile(`(?i)\b(react(\.?js)?)\b`), "devdocs_en_react", "DevDocs' React documentation"},
	{regexp.MustCompile(`(?i)\b(golang|go (programming|language|developer|code))\b`), "devdocs_en_go", "DevDocs' Go documentation"},
	{regexp.MustCompile(`(?i)\b(rust(lang)?|cargo crates?)\b`), "devdocs_en_rust", "DevDocs' Rust documentation"},
	{regexp.MustCompile(`(?i)(^|[^\w+])c\+\+`), "devdocs_en_cpp", "DevDocs' C++ documentation"},
	{regexp.MustCompile(`(?i)\b(postgres(ql)?)\b`), "devdocs_en_postgresql", "DevDocs' PostgreSQL documentation"},
	{regexp.MustCompile(`(?i)\b(docker\w*|dockerfile)\b`), "devdocs_en_docker", "DevDocs' Docker documentation"},
	{regexp.MustCompile(`(?i)\b(linux|unix|shell|bash|sysadmin|terminal|devops)\b`), "unix.stackexchange.com_en_all", "Unix & Linux Stack Exchange"},
	{regexp.MustCompile(`(?i)\b(java|kotlin|swift|php|ruby|programm\w+|coding|coder\w*|code review|developer\w*|software|api|sql|css|html|algorithm\w*)\b`), "stackoverflow.com_en_all", "Stack Overflow"},
	{regexp.MustCompile(`(?i)\b(medic\w*|biomedic\w*|health\w*|clinic\w*|doctor\w*|nurs\w+|symptom\w*|disease\w*|drug\w*|pharma\w*|first aid)\b`), "wikipedia_en_medicine_maxi", "WikiMed, Wikipedia's medical articles"},
	{regexp.MustCompile(`(?i)\b(travel\w*|trip\w*|itinerar\w+|touris\w+|destination\w*|vacation\w*|voyage\w*|globetrotter\w*)\b`), "wikivoyage_en_all_maxi", "Wikivoyage"},
	{regexp.MustCompile(`(?i)\b(etymolog\w+|vocabulary|synonym\w*|spelling|definitions? of words|(english|word|language) dictionar\w+)\b`), "wiktionary_en_all_maxi", "Wiktionary"},
	{regexp.MustCompile(`(?i)\b(cook\w*|recipe\w*|baking|bake\w*|kitchen|cuisine|culinary|chef\w*|gourmet|meal\w*|dish(es)?|vegan|vegetarian|pizza|pasta)\b`), "wikibooks_en_all_maxi", "Wikibooks, with its Cookbook of recipes and techniques"},
	{regexp.MustCompile(`(?i)\b(math\w*|algebra|calculus|geometry|statistic\w*|proofs?|equations?|arithmetic)\b`), "math.stackexchange.com_en_all", "Mathematics Stack Exchange"},
	{regexp.MustCompile(`(?i)\b(novel\w*|poem\w*|poetry|classic books?|gutenberg|shakespeare)\b`), "gutenberg_en_all", "Project Gutenberg's books"},
}

// wikipediaZIM is the library to carry when the subject says nothing
// more specific.
const wikipediaZIM = "wikipedia_en_all_maxi"

// SuggestZIM names the Kiwix ZIM to carry for a GPT, and what it is: the
// subject its name says, first match first; else the subject its
// description and instructions (about) say most often (a cooking GPT whose
// instructions mention HTML once is still a cooking GPT); else Wikipedia.
func SuggestZIM(name, about string) (zim, what string) {
	for _, z := range zimFor {
		if z.words.MatchString(name) {
			return z.zim, z.what
		}
	}
	best, most := -1, 0
	for i, z := range zimFor {
		if n := len(z.words.FindAllStringIndex(about, -1)); n > most {
			best, most = i, n
		}
	}
	if best >= 0 {
		return zimFor[best].zim, zimFor[best].what
	}
	return wikipediaZIM, "Wikipedia"
}

// ZIMFile is the file name library.kiwix.org gives a ZIM of that name
// (its date is the month it was built).
func ZIMFile(zim string) string { return zim + "_<date>.zim" }

// zimWords is the sentence the audit says for the ZIM to carry.
func zimWords(s Subject) string {
	zim, what := s.ZIM, s.ZIMWhat
	if zim == "" {
		zim, what = SuggestZIM(s.Name, "")
	}
	return what + " (" + ZIMFile(zim) + " from library.kiwix.org)"
}

func joinOr(ss []string, none string) string {
	if len(ss) == 0 {
		return none
	}
	return strings.Join(ss, ", ")
}
