package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// Code's output reaching a terminal is shown, never obeyed: a script may
// print escape sequences that clear the screen, set the window title,
// write the clipboard (OSC 52), or erase and rewrite lines to fake what
// rehome said. Like well-behaved tools (less, git), rehome shows control
// characters in caret notation instead (ESC as ^[, CSI as ^[[), keeps
// newlines and tabs, and turns a carriage return that would overwrite a
// line into a new line. Pipes and --json get the bytes as they came.

// isTerminal says whether s, a reader or a writer, is a terminal.
// A stream that crossed the door says what it is at the terminal's end.
func isTerminal(s any) bool {
	if t, ok := s.(interface{ IsTerminal() bool }); ok {
		return t.IsTerminal()
	}
	f, ok := s.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// termSafe returns s with every control sequence neutralised (see above).
func termSafe(s string) string {
	var t termFilter
	return t.filter(s) + t.flush()
}

// termFilter neutralises control characters in a stream that arrives in
// pieces: a UTF-8 character or a CR LF split between two pieces is held
// until the next.
type termFilter struct {
	pending string // an incomplete UTF-8 sequence
	cr      bool   // a CR was last: LF follows (CR LF) or not (a rewrite)
}

func (t *termFilter) filter(s string) string {
	s = t.pending + s
	t.pending = ""
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 && !utf8.FullRuneInString(s[i:]) {
			t.pending = s[i:]
			break
		}
		if t.cr {
			t.cr = false
			b.WriteByte('\n') // CR LF, or a lone CR that would overwrite the line
			if r == '\n' {
				i += n
				continue
			}
		}
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			t.cr = true
		case r == utf8.RuneError && n == 1:
			b.WriteString("\uFFFD")
		case r < 0x20:
			b.WriteByte('^')
			b.WriteByte(byte(r) + 0x40)
		case r == 0x7f:
			b.WriteString("^?")
		case r >= 0x80 && r < 0xa0: // C1 controls: CSI, OSC, ST…
			b.WriteString("^[")
			b.WriteByte(byte(r - 0x40))
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi overrides
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// flush returns what is held at the end of the stream.
func (t *termFilter) flush() string {
	out := ""
	if t.cr {
		out = "\n"
	}
	if t.pending != "" {
		out += strings.Repeat("\uFFFD", len(t.pending))
	}
	t.pending, t.cr = "", false
	return out
}

// safeWriter is w, with control sequences neutralised when w is a
// terminal: for text a model server or a model chose (model names, error
// messages, answers) printed by commands that are not streams.
func safeWriter(w io.Writer) io.Writer {
	if !isTerminal(w) {
		return w
	}
	return &termWriter{w: w}
}

type termWriter struct {
	w io.Writer
	f termFilter
}

func (t *termWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, t.f.filter(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
