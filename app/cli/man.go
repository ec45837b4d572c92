package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// cmdMan is the hidden `rehome man`: it prints the manual page rehome(1) in
// roff, generated from the command tree and each command's own --help, so
// the page never drifts from the binary. The package build gzips it into
// /usr/share/man/man1. It needs no data directory and opens nothing.
func cmdMan(env *cliEnv, args []string) int {
	fs := env.flags("man", "man")
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	writeMan(env.stdout, env.version, manDate())
	return exitOK
}

// manDate is the page's date: SOURCE_DATE_EPOCH when set (reproducible
// builds), else today.
func manDate() time.Time {
	var sec int64
	if _, err := fmt.Sscan(os.Getenv("SOURCE_DATE_EPOCH"), &sec); err == nil && sec > 0 {
		return time.Unix(sec, 0).UTC()
	}
	return time.Now().UTC()
}

// helpOf returns what c's own run prints for --help (a leaf's usage and
// flags; "" for a group without a run).
func helpOf(c command) string {
	var out bytes.Buffer
	probe(c, &out)
	return out.String()
}

// probe runs c's own run with --help, its usage written to w, from an env
// that opens nothing, and returns the env: its flagSet is the command's
// flags (nil where c has no run or takes no flags).
func probe(c command, w io.Writer) *cliEnv {
	env := &cliEnv{stdout: w, stderr: io.Discard, stdin: strings.NewReader(""), dataDir: "/nonexistent"}
	if c.run != nil {
		c.run(env, []string{"--help"})
	}
	return env
}

// roff escapes text for a roff line.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

func writeMan(w io.Writer, version string, date time.Time) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p(`.TH REHOME 1 "%s" "rehome %s" "User Commands"`, date.Format("2006-01-02"), roff(version))
	p(".SH NAME")
	p(`rehome \- move custom GPTs to local model weights, with a local Code Interpreter sandbox`)
	p(".SH SYNOPSIS")
	p(".B rehome")
	p(".RI [ FILE ]")
	p(".br")
	p(".B rehome")
	p(".RB [ \\-\\-verbose ]")
	p(".I command")
	p(".RI [ flags ]")
	p(".SH DESCRIPTION")
	p("With no command, or with a data file (CSV, TSV, Excel, JSON, Parquet), rehome opens its window;")
	p("with no display it serves the same UI to a browser on this machine (see")
	p(".BR serve ).")
	p("Commands work in a terminal with no display. Nothing needs the internet at run time:")
	p("Python runs in a locked\\-down Podman sandbox (no network, only the given file visible, time,")
	p("memory and process limits) from an image built from Debian packages or loaded from an archive.")
	p(".SH COMMANDS")
	var walk func(c command, path string)
	walk = func(c command, path string) {
		p(".SS %s", roff(path))
		if c.summary != "" {
			p("%s", roff(strings.ToUpper(c.summary[:1])+c.summary[1:]+"."))
		}
		if text := strings.TrimRight(helpOf(c), "\n"); text != "" {
			p(".PP")
			p(".nf")
			p(".RS 4")
			for _, line := range strings.Split(text, "\n") {
				p("%s", roff(strings.ReplaceAll(line, "\t", "        ")))
			}
			p(".RE")
			p(".fi")
		}
		for _, s := range c.shown() {
			walk(s, path+" "+s.name)
		}
	}
	for _, c := range tree().shown() {
		walk(c, "rehome "+c.name)
	}
	p(".SH EXIT STATUS")
	p("0 on success, 1 on failure (the message says what to do next), 2 on bad usage.")
	p(".SH ENVIRONMENT")
	p(".TP")
	p(".B REHOME_HOME")
	p("The data directory (default \\fI$XDG_DATA_HOME/rehome\\fP or \\fI~/.local/share/rehome\\fP).")
	p(".TP")
	p(".B REHOME_CACHE")
	p("Where the sandbox image archive is cached (default \\fI/var/cache/rehome\\fP for root, else \\fI~/.cache/rehome\\fP).")
	p(".TP")
	p(".B CONTAINER_HOST")
	p("The Podman service to use, e.g. \\fIunix:///run/user/1000/podman/podman.sock\\fP.")
	p(".SH FILES")
	p(".TP")
	p(".I ~/.local/share/rehome/rehome.db")
	p("The database (assistants, audits, runs); kept when the package is removed.")
	p(".TP")
	p(".I /usr/share/rehome/rehome\\-sandbox\\-*.tar.gz")
	p("The sandbox image shipped by the rehome\\-sandbox\\-image package, loaded on first start after its SHA\\-256 is checked.")
	p(".SH SEE ALSO")
	p(".BR podman (1),")
	p(".BR podman\\-system\\-service (1)")
}
