package cli

import (
	"io"

	"rehome/backend/termtext"
)

// One filter for every outside string a terminal is shown
// (backend/termtext): Run wraps the command's stdout and stderr in it
// (safeWriter) when they are terminals, so an error from a Podman
// service, a GGUF's architecture in `models add`'s refusal, an API's
// answer, a schema's operation names — whatever a command prints — cannot
// drive the terminal. rehome itself prints no control sequences. The
// streams that print code's output piece by piece filter the same way
// (the filter is idempotent: its output holds no control characters).
// Pipes and --json get the bytes as they came.

// isTerminal says whether s, a reader or a writer, is a terminal.
// A stream that crossed the door says what it is at the terminal's end.
func isTerminal(s any) bool {
	if t, ok := s.(interface{ IsTerminal() bool }); ok {
		return t.IsTerminal()
	}
	return termtext.IsTerminal(s)
}

// termSafe returns s with every control sequence neutralised.
func termSafe(s string) string { return termtext.Safe(s) }

// termFilter neutralises control characters in a stream that arrives in
// pieces (termtext.Filter).
type termFilter struct{ f termtext.Filter }

func (t *termFilter) filter(s string) string { return t.f.Feed(s) }
func (t *termFilter) flush() string          { return t.f.Flush() }

// safeWriter is w, with control sequences neutralised when w is a
// terminal (termtext.Writer).
func safeWriter(w io.Writer) io.Writer { return termtext.Writer(w) }
