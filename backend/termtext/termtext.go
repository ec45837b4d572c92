package termtext

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// IsTerminal says whether s, a reader or a writer, is a terminal (a
// writer wrapped by Writer answers for its terminal).
func IsTerminal(s any) bool {
	f, ok := s.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// Safe returns s with every control sequence neutralised.
func Safe(s string) string {
	var t Filter
	return t.Feed(s) + t.Flush()
}

// Filter neutralises control characters in a stream that arrives in
// pieces: a UTF-8 character or a CR LF split between two pieces is held
// until the next.
type Filter struct {
	pending string // an incomplete UTF-8 sequence
	cr      bool   // a CR was last: LF follows (CR LF) or not (a rewrite)
}

// Feed returns the next piece of the stream, neutralised; what cannot be
// judged yet (half a UTF-8 character, a CR) is held for the next piece.
func (t *Filter) Feed(s string) string {
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

// Flush returns what is held at the end of the stream.
func (t *Filter) Flush() string {
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

// Writer is w, with control sequences neutralised when w is a
// terminal: for text a model server or a model chose (model names, error
// messages, answers) printed by commands that are not streams.
func Writer(w io.Writer) io.Writer {
	if _, done := w.(*termWriter); done || !IsTerminal(w) {
		return w
	}
	return &termWriter{w: w}
}

type termWriter struct {
	w io.Writer
	f Filter
}

// Fd is the terminal's descriptor (IsTerminal, prompts' checks).
func (t *termWriter) Fd() uintptr {
	if f, ok := t.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

func (t *termWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, t.f.Feed(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
