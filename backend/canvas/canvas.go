package canvas

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pmezard/go-difflib/difflib"
)

// Bounds.
const (
	// MaxBytes is the most a textdoc holds.
	MaxBytes = 256 << 10
	// MaxVersionBytes is the most a textdoc's versions hold in all (the
	// oldest after the first go first): a conversation stays bounded.
	MaxVersionBytes = 1 << 20
	// MaxDocs is the most textdocs a conversation holds.
	MaxDocs = 8
	// MaxVersions is how many versions a textdoc keeps (the oldest after
	// the first go).
	MaxVersions = 50
	// MaxPattern is the longest pattern read.
	MaxPattern = 4 << 10
)

// Doc is one textdoc.
type Doc struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Type is "document", or "code/LANGUAGE" ("code/python").
	Type     string    `json:"type"`
	Content  string    `json:"content"`
	Versions []Version `json:"versions"`
	Comments []Comment `json:"comments,omitempty"`
}

// Version is one state of a textdoc.
type Version struct {
	N       int       `json:"n"`
	Content string    `json:"content"`
	By      string    `json:"by"` // model, user, restore
	At      time.Time `json:"at"`
	Note    string    `json:"note,omitempty"`
}

// Comment is the model's suggestion on a passage.
type Comment struct {
	Pattern string    `json:"pattern"`
	Quote   string    `json:"quote"`
	Comment string    `json:"comment"`
	At      time.Time `json:"at"`
}

// IsCode says whether the textdoc is code.
func (d *Doc) IsCode() bool { return strings.HasPrefix(d.Type, "code/") }

// Language is the code's language ("" for a document).
func (d *Doc) Language() string { return strings.TrimPrefix(d.Type, "code/") }

// New makes a textdoc, version 1 by who.
func New(id, name, typ, content, who string) (*Doc, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = "Untitled"
	}
	if typ == "" {
		typ = "document"
	}
	if typ != "document" && !strings.HasPrefix(typ, "code/") {
		return nil, fmt.Errorf("the type is \"document\" or \"code/LANGUAGE\" (code/python), not %q", typ)
	}
	d := &Doc{ID: id, Name: name, Type: typ}
	return d, d.set(content, who, "created")
}

func (d *Doc) set(content, who, note string) error {
	if len(content) > MaxBytes {
		return fmt.Errorf("%w: %d bytes, a textdoc holds at most %d", ErrTooLarge, len(content), MaxBytes)
	}
	if !utf8.ValidString(content) {
		content = strings.ToValidUTF8(content, "\uFFFD")
	}
	d.Content = content
	n := 1
	if len(d.Versions) > 0 {
		n = d.Versions[len(d.Versions)-1].N + 1
	}
	d.Versions = append(d.Versions, Version{N: n, Content: content, By: who, At: time.Now().UTC(), Note: note})
	for len(d.Versions) > 2 && (len(d.Versions) > MaxVersions || versionBytes(d.Versions) > MaxVersionBytes) {
		d.Versions = append(d.Versions[:1], d.Versions[2:]...)
	}
	return nil
}

func versionBytes(vs []Version) int {
	n := 0
	for _, v := range vs {
		n += len(v.Content)
	}
	return n
}

// Update is one replacement of canmore.update_textdoc.
type Update struct {
	Pattern     string `json:"pattern"`
	Multiple    bool   `json:"multiple"`
	Replacement string `json:"replacement"`
}

// pyGroup is Python's \1 and \g<1>/\g<name> in a replacement.
var pyGroup = regexp.MustCompile(`\\g<(\w+)>|\\(\d{1,2})`)

// goReplacement turns a Python re replacement into Go's Expand syntax.
func goReplacement(r string) string {
	r = strings.ReplaceAll(r, "$", "$$")
	return pyGroup.ReplaceAllStringFunc(r, func(m string) string {
		sub := pyGroup.FindStringSubmatch(m)
		g := sub[1]
		if g == "" {
			g = sub[2]
		}
		return "${" + g + "}"
	})
}

// Apply applies updates in order, as one new version by who: ".*" (the
// whole of it) rewrites the textdoc; another pattern replaces its first
// match, or every match with Multiple.
func (d *Doc) Apply(updates []Update, who string) error {
	if len(updates) == 0 {
		return fmt.Errorf("no updates: give {\"updates\": [{\"pattern\": \".*\", \"replacement\": \"…\"}]}")
	}
	text := d.Content
	for i, u := range updates {
		if u.Pattern == ".*" || u.Pattern == "(?s).*" || u.Pattern == "^.*$" {
			text = u.Replacement
			continue
		}
		if len(u.Pattern) > MaxPattern {
			return fmt.Errorf("update %d: %w: %d bytes, at most %d", i+1, ErrBadPattern, len(u.Pattern), MaxPattern)
		}
		re, err := regexp.Compile("(?m)" + u.Pattern)
		if err != nil {
			return fmt.Errorf("update %d: %w: %v (no look-behind or back-references)", i+1, ErrBadPattern, err)
		}
		rep := goReplacement(u.Replacement)
		locs := re.FindAllStringSubmatchIndex(text, -1)
		if len(locs) == 0 {
			return fmt.Errorf("update %d: %w: %q is not in the textdoc (nothing was changed; read its text again, or rewrite it with the pattern \".*\")", i+1, ErrNoMatch, u.Pattern)
		}
		if !u.Multiple {
			locs = locs[:1]
		}
		var b strings.Builder
		last := 0
		for _, loc := range locs {
			b.WriteString(text[last:loc[0]])
			b.Write(re.ExpandString(nil, rep, text, loc))
			last = loc[1]
		}
		b.WriteString(text[last:])
		text = b.String()
	}
	return d.set(text, who, fmt.Sprintf("%d update(s)", len(updates)))
}

// Edit replaces the content, as the user typed it.
func (d *Doc) Edit(content string) error {
	if content == d.Content {
		return nil
	}
	return d.set(content, "user", "edited")
}

// Version returns version n.
func (d *Doc) Version(n int) (Version, error) {
	for _, v := range d.Versions {
		if v.N == n {
			return v, nil
		}
	}
	return Version{}, fmt.Errorf("%s version %d: %w (it has %d to %d)", d.Name, n, ErrNoVersion, d.Versions[0].N, d.Versions[len(d.Versions)-1].N)
}

// Restore makes version n the current content, as a new version.
func (d *Doc) Restore(n int) error {
	v, err := d.Version(n)
	if err != nil {
		return err
	}
	return d.set(v.Content, "restore", fmt.Sprintf("version %d restored", n))
}

// Diff is a unified diff from version a to version b.
func (d *Doc) Diff(a, b int) (string, error) {
	va, err := d.Version(a)
	if err != nil {
		return "", err
	}
	vb, err := d.Version(b)
	if err != nil {
		return "", err
	}
	return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(va.Content), B: difflib.SplitLines(vb.Content),
		FromFile: fmt.Sprintf("%s (version %d)", d.Name, a), ToFile: fmt.Sprintf("%s (version %d)", d.Name, b), Context: 3,
	})
}

// AddComments records comments on the passages their patterns find.
func (d *Doc) AddComments(comments []Comment) error {
	for i, c := range comments {
		if len(c.Pattern) > MaxPattern {
			return fmt.Errorf("comment %d: %w", i+1, ErrBadPattern)
		}
		re, err := regexp.Compile("(?m)" + c.Pattern)
		if err != nil {
			return fmt.Errorf("comment %d: %w: %v", i+1, ErrBadPattern, err)
		}
		q := re.FindString(d.Content)
		if q == "" {
			return fmt.Errorf("comment %d: %w: %q is not in the textdoc", i+1, ErrNoMatch, c.Pattern)
		}
		c.Quote, c.At = q, time.Now().UTC()
		d.Comments = append(d.Comments, c)
	}
	return nil
}
