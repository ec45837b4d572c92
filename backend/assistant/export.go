package assistant

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ExportOptions choose the local model an export runs on and how.
type ExportOptions struct {
	// Model is the local model: an Ollama name such as "qwen2.5:7b" (FROM
	// in a Modelfile, base_model_id in Open WebUI), or for a Modelfile a
	// path to a GGUF file.
	Model string `json:"model"`
	// Parameters are Ollama PARAMETERs in order (name, value). num_ctx is
	// added, sized to the instructions, unless given here.
	Parameters []Parameter `json:"parameters"`
	// NoGreeting keeps the conversation starters out of the Modelfile's
	// MESSAGE lines (they are then written as comments only).
	NoGreeting bool `json:"no_greeting"`
}

// Parameter is one Ollama model parameter.
type Parameter struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ollamaParameters are the PARAMETER names Ollama accepts (api.Options);
// an unknown one makes `ollama create` fail, so it fails here first.
var ollamaParameters = []string{
	"num_ctx", "num_batch", "num_gpu", "main_gpu", "use_mmap", "num_thread", "num_keep", "seed",
	"num_predict", "top_k", "top_p", "min_p", "typical_p", "repeat_last_n", "temperature",
	"repeat_penalty", "presence_penalty", "frequency_penalty", "stop",
}

var modelRef = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$`)

func checkModel(model string) error {
	switch {
	case strings.TrimSpace(model) == "":
		return ErrNoModel
	case !modelRef.MatchString(model) && !strings.HasPrefix(model, "./") && !strings.HasPrefix(model, "/") && !strings.HasPrefix(model, "~/"):
		return fmt.Errorf("model %q: expected an Ollama model name such as qwen2.5:7b, or a path to a GGUF file", model)
	case strings.ContainsAny(model, " \t\r\n\""):
		return fmt.Errorf("model %q: a model name or path cannot hold spaces or quotes here", model)
	}
	return nil
}

// contextFor sizes num_ctx: room for the instructions (about four bytes a
// token) plus 4096 tokens of conversation, at least 8192 (Ollama's default
// is smaller than a long GPT prompt), at most 32768.
func contextFor(a Assistant) (int, bool) {
	need := len(a.Instructions)/4 + 4096
	n := 8192
	for n < need && n < 32768 {
		n *= 2
	}
	return n, need <= 32768
}

// printable makes text survive Ollama's Modelfile parser, which drops
// every rune strconv.IsPrint rejects except newlines and tabs: other spaces
// (no-break, thin...) become plain spaces, other invisible runes go. It
// reports how many runes it changed.
func printable(s string) (string, int) {
	changed := 0
	out := strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t' || strconv.IsPrint(r):
			return r
		case unicode.IsSpace(r):
			changed++
			return ' '
		default:
			changed++
			return -1
		}
	}, s)
	return out, changed
}

// tripleQuoted writes a Modelfile value between """ marks. The format has
// no escapes: a line of the value that ends in """ would end it early, so
// three double quotes inside become three single quotes (and are reported).
func tripleQuoted(field, s string, warn func(string, ...any)) string {
	s, n := printable(s)
	if n > 0 {
		warn("%s: %d invisible or unusual space character(s) changed, as Ollama's Modelfile parser would drop them", field, n)
	}
	if strings.Contains(s, `"""`) {
		warn(`%s: """ written as ''' because a Modelfile cannot escape it`, field)
		s = strings.ReplaceAll(s, `"""`, `'''`)
	}
	return `"""` + s + `"""`
}

// quoteParam writes a PARAMETER value the way Ollama's parser reads it
// back: bare, or in quotes when it has spaces.
func quoteParam(v string) string {
	if strings.ContainsAny(v, " \t\"") {
		if strings.Contains(v, `"`) {
			return `"""` + v + `"""`
		}
		return `"` + v + `"`
	}
	return v
}

// comment flattens text to one comment line.
func comment(s string) string {
	s, _ = printable(s)
	return strings.Join(strings.Fields(s), " ")
}

// greeting is the MESSAGE that carries the starters, when they fit: a
// first assistant turn listing them, at most 1,000 characters.
func greeting(a Assistant) (string, bool) {
	if len(a.Starters) == 0 {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Hello, I am %s. You could start with:", a.Name)
	for _, s := range a.Starters {
		b.WriteString("\n- " + strings.Join(strings.Fields(s), " "))
	}
	g := b.String()
	return g, utf8.RuneCountInString(g) <= 1000
}

// Modelfile writes an Ollama Modelfile for a: FROM the chosen model,
// SYSTEM from the instructions, PARAMETERs, a MESSAGE greeting listing the
// conversation starters where it fits, and comments for what a Modelfile
// cannot hold (knowledge files, actions, capabilities). The warnings say
// what changed on the way.
func Modelfile(a Assistant, opts ExportOptions) (string, []string, error) {
	if err := checkModel(opts.Model); err != nil {
		return "", nil, err
	}
	warnings := []string{}
	warn := func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
	params := slices.Clone(opts.Parameters)
	for i, p := range params {
		if !slices.Contains(ollamaParameters, p.Name) {
			return "", nil, fmt.Errorf("parameter %q: Ollama does not know it (known: %s)", p.Name, strings.Join(ollamaParameters, ", "))
		}
		if strings.TrimSpace(p.Value) == "" || strings.ContainsAny(p.Value, "\r\n") {
			return "", nil, fmt.Errorf("parameter %s: the value must be one non-empty line", p.Name)
		}
		params[i].Value = strings.TrimSpace(p.Value)
	}
	if !slices.ContainsFunc(params, func(p Parameter) bool { return p.Name == "num_ctx" }) {
		n, fits := contextFor(a)
		if !fits {
			warn("SYSTEM: the instructions are about %d tokens, more than a 32768-token context holds with room to talk: shorten them", len(a.Instructions)/4)
		}
		params = append([]Parameter{{"num_ctx", strconv.Itoa(n)}}, params...)
	}

	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("# Modelfile for %q, exported by rehome.", comment(a.Name))
	line("# Build it with: ollama create %s -f <this file>", Slug(a.Name))
	if a.Description != "" {
		line("# %s", comment(a.Description))
	}
	line("FROM %s", opts.Model)
	for _, p := range params {
		line("PARAMETER %s %s", p.Name, quoteParam(p.Value))
	}
	if a.Instructions != "" {
		line("SYSTEM %s", tripleQuoted("SYSTEM", a.Instructions, warn))
	} else {
		warn("SYSTEM: the assistant has no instructions, so the Modelfile sets no system prompt")
	}
	if len(a.Starters) > 0 {
		g, fits := greeting(a)
		switch {
		case opts.NoGreeting:
		case fits:
			line("MESSAGE assistant %s", tripleQuoted("MESSAGE", g, warn))
		default:
			warn("MESSAGE: the conversation starters are too long for a greeting (over 1,000 characters); they are written as comments")
		}
		line("# Conversation starters (ChatGPT showed them as buttons):")
		for _, s := range a.Starters {
			line("#   %s", comment(s))
		}
	}
	if len(a.Knowledge) > 0 {
		line("# Knowledge files: a Modelfile cannot hold them; index them with your retrieval tool.")
		for _, k := range a.Knowledge {
			line("#   %s  %d bytes  sha256 %s", comment(k.Name), k.Size, k.SHA256)
		}
	}
	if len(a.Actions) > 0 {
		line("# Actions: call them from a front end with tool calling (Open WebUI tool servers).")
		for i, ac := range a.Actions {
			line("#   action %d: auth %s%s", i+1, orNone(ac.Auth), firstLine(ac.Schema))
		}
	}
	if len(a.Capabilities) > 0 {
		var cs []string
		for _, c := range a.Capabilities {
			cs = append(cs, string(c))
		}
		line("# Capabilities a Modelfile cannot switch on (see `rehome audit`): %s", strings.Join(cs, ", "))
	}
	return b.String(), warnings, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// firstLine names an action by its schema's title or function name.
func firstLine(schema string) string {
	var doc struct {
		Info struct {
			Title string `json:"title"`
		} `json:"info"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal([]byte(schema), &doc) == nil {
		switch {
		case doc.Info.Title != "":
			return ", " + comment(doc.Info.Title)
		case doc.Function.Name != "":
			return ", function " + comment(doc.Function.Name)
		}
	}
	return ""
}

// Slug makes an assistant's name into a model and file name: lower-case
// ASCII letters, digits and dashes ("assistant" when nothing is left).
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	if s := strings.TrimSuffix(b.String(), "-"); s != "" {
		return s
	}
	return "assistant"
}
