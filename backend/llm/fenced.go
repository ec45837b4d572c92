package llm

import (
	"regexp"
	"strings"
)

// fence matches a fenced code block: the opening fence (three or more
// backticks or tildes) with its info string, the body, the closing fence.
var fence = regexp.MustCompile("(?ms)^[ \t]*(```+|~~~+)[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)\n?[ \t]*(```+|~~~+)[ \t]*$")

// pythonInfo are the info strings of a block rehome may run.
var pythonInfo = map[string]bool{"python": true, "py": true, "python3": true, "ipython": true}

// ActionBlock decides whether a message (visible text only: thinking is
// never looked at) asks rehome to run code, for models without tool
// calling. The rule: the message's last fenced block is run when it is a
// ```python (py, python3) block and nothing but white space follows its
// closing fence. A block followed by words — the model explaining or
// quoting code in its answer — is shown and never run; so is a block in
// another language, or one left unclosed.
func ActionBlock(text string) (code string, ok bool) {
	ms := fence.FindAllStringSubmatchIndex(text, -1)
	if len(ms) == 0 {
		return "", false
	}
	m := ms[len(ms)-1]
	open, close := text[m[2]:m[3]], text[m[8]:m[9]]
	if close[0] != open[0] || len(close) < len(open) {
		return "", false
	}
	if !pythonInfo[strings.ToLower(text[m[4]:m[5]])] {
		return "", false
	}
	if strings.TrimSpace(text[m[1]:]) != "" {
		return "", false
	}
	code = text[m[6]:m[7]]
	if strings.TrimSpace(code) == "" {
		return "", false
	}
	return code, true
}

// stripFences removes fenced blocks, leaving the prose around them.
func stripFences(text string) string {
	return strings.TrimSpace(fence.ReplaceAllString(text, ""))
}
