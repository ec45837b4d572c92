package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// CodeFromArguments reads the code out of a python tool call's arguments:
// {"code": "..."} (the schema), the arguments JSON-encoded twice, another
// single string field, or bare code that is not JSON at all (small models
// do each).
func CodeFromArguments(name, args string) (string, error) {
	if name != "" && name != ToolName && !strings.Contains(strings.ToLower(name), "python") && !strings.Contains(strings.ToLower(name), "code") {
		return "", fmt.Errorf("there is no tool %q: the only tool is `python`, with one argument `code`", name)
	}
	s := strings.TrimSpace(args)
	if s == "" {
		return "", errors.New("the call had no code: call `python` with {\"code\": \"...\"}")
	}
	for range 2 {
		var str string
		if json.Unmarshal([]byte(s), &str) == nil {
			s = strings.TrimSpace(str) // encoded twice
			continue
		}
		var obj map[string]any
		if json.Unmarshal([]byte(s), &obj) == nil {
			if c, ok := obj["code"].(string); ok && strings.TrimSpace(c) != "" {
				return c, nil
			}
			var only string
			n := 0
			for _, v := range obj {
				if vs, ok := v.(string); ok {
					only = vs
					n++
				}
			}
			if n == 1 && strings.TrimSpace(only) != "" {
				return only, nil
			}
			return "", errors.New("the call had no `code` argument: call `python` with {\"code\": \"...\"}")
		}
		break
	}
	if strings.HasPrefix(s, "{") {
		return "", errors.New("the call's arguments were not valid JSON: call `python` with {\"code\": \"...\"}")
	}
	return s, nil // bare code
}

// normalizeCode is the code compared for "the same code again": lines
// without trailing blanks, blank lines dropped.
func normalizeCode(code string) string {
	var out []string
	for _, ln := range strings.Split(code, "\n") {
		if ln = strings.TrimRight(ln, " \t\r"); strings.TrimSpace(ln) != "" {
			out = append(out, ln)
		}
	}
	return strings.Join(out, "\n")
}

// MaxFed is how much of a cell's output the model gets back.
const MaxFed = 4 << 10

// FormatOutput is what the model reads of a cell: stdout, stderr (with the
// traceback), the exit code when not 0, a timeout or memory kill, the
// plots and files given to the user; "no output" said when there was
// none. Each stream is cut to fit max bytes, keeping its head and tail.
func FormatOutput(r CellResult, max int) string {
	var b strings.Builder
	out, errs := r.Stdout, r.Stderr
	budget := max - 300
	if budget < 200 {
		budget = 200
	}
	oBudget, eBudget := budget/2, budget/2
	if len(out) < oBudget {
		eBudget += oBudget - len(out)
	}
	if len(errs) < eBudget {
		oBudget += eBudget - len(errs)
	}
	if strings.TrimSpace(out) != "" {
		b.WriteString("stdout:\n")
		b.WriteString(cut(out, oBudget))
		b.WriteString("\n")
	}
	if strings.TrimSpace(errs) != "" {
		b.WriteString("stderr:\n")
		b.WriteString(cut(errs, eBudget))
		b.WriteString("\n")
	}
	switch {
	case r.TimedOut:
		b.WriteString("The code was killed at the time limit.\n")
	case r.OOMKilled:
		b.WriteString("The code was killed for using more memory than allowed.\n")
	case r.ExitCode != 0:
		fmt.Fprintf(&b, "exit code %d\n", r.ExitCode)
	}
	var plots, files []string
	for _, f := range r.Files {
		if f.Kind == "plot" {
			plots = append(plots, f.Name)
		} else {
			files = append(files, f.Name)
		}
	}
	for _, p := range plots {
		fmt.Fprintf(&b, "plot saved: %s (shown to the user)\n", p)
	}
	if len(files) > 0 {
		fmt.Fprintf(&b, "File(s) saved and given to the user: %s.\n", strings.Join(files, ", "))
	}
	if r.StateLost != "" {
		b.WriteString("Note: " + r.StateLost + ".\n")
	}
	if strings.TrimSpace(out) == "" && strings.TrimSpace(errs) == "" {
		if r.ExitCode == 0 && !r.TimedOut && !r.OOMKilled {
			b.WriteString("(no output: the code ran without printing anything; print() what you want to see)\n")
		} else {
			b.WriteString("(no output)\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// cut keeps the head and the tail of s within n bytes, saying how much
// was left out, on UTF-8 boundaries.
func cut(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if len(s) <= n {
		return s
	}
	head, tail := n*2/3, n/3
	h := s[:head]
	for len(h) > 0 && !validEnd(h) {
		h = h[:len(h)-1]
	}
	tl := s[len(s)-tail:]
	for len(tl) > 0 && (tl[0]&0xC0) == 0x80 {
		tl = tl[1:]
	}
	return fmt.Sprintf("%s\n… (%d bytes left out) …\n%s", h, len(s)-len(h)-len(tl), tl)
}

func validEnd(s string) bool {
	// the last rune is complete when it is ASCII or its lead byte's length fits
	for i := len(s) - 1; i >= 0 && i >= len(s)-4; i-- {
		c := s[i]
		if c < 0x80 {
			return i == len(s)-1
		}
		if c >= 0xC0 {
			need := 2
			if c >= 0xF0 {
				need = 4
			} else if c >= 0xE0 {
				need = 3
			}
			return len(s)-i == need
		}
	}
	return false
}
