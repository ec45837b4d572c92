package cli

import (
	"os"
	"strings"
	"testing"
)

// The manual page is generated from the command tree and each command's
// --help: every command and nested command has its section, flags come
// from the flag sets, and it touches no data directory.
func TestManPage(t *testing.T) {
	home := t.TempDir() + "/data"
	r := rehomeCLI(t, home, "man")
	if r.code != 0 {
		t.Fatalf("rehome man: %+v", r)
	}
	page := r.stdout
	if !strings.HasPrefix(page, ".TH REHOME 1 ") {
		t.Fatalf("no .TH header: %.80q", page)
	}
	for _, c := range tree().shown() {
		if !strings.Contains(page, ".SS rehome "+c.name+"\n") {
			t.Errorf("no section for %s", c.name)
		}
	}
	for _, want := range []string{
		".SS rehome sandbox image build\n", ".SS rehome assistants export\n",
		// Read from the tree, not from help text: the subcommands of the
		// groups that also run alone (audit, models, settings) are there.
		".SS rehome audit compare\n", ".SS rehome models add\n", ".SS rehome settings reset\n",
		`usage: rehome mcp rm ASSISTANT SERVER`,
		`usage: rehome run \-\-file PATH`, `\-timeout limit`, ".SH EXIT STATUS", "REHOME_HOME",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Lines starting with a dot are roff requests: only ours may.
	requests := []string{".TH ", ".SH ", ".SS ", ".PP", ".nf", ".fi", ".RS ", ".RE", ".B ", ".BR ", ".RB ", ".RI ", ".I ", ".br", ".TP"}
	for _, line := range strings.Split(page, "\n") {
		ok := !strings.HasPrefix(line, ".")
		for _, r := range requests {
			ok = ok || strings.HasPrefix(line, r)
		}
		if !ok {
			t.Errorf("stray roff request: %q", line)
		}
	}
	if _, err := os.Stat(home); err == nil {
		t.Errorf("rehome man created the data directory %s", home)
	}
	// Reproducible: SOURCE_DATE_EPOCH fixes the date.
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	if r := rehomeCLI(t, home, "man"); !strings.Contains(r.stdout, `"2023-11-14"`) {
		t.Errorf("SOURCE_DATE_EPOCH ignored: %.60q", r.stdout)
	}
}
