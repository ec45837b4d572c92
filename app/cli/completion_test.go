package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The bash completion script, sourced in a real bash: it registers itself
// for rehome, and the completion function, given the words as bash hands
// them (COMP_WORDS, COMP_CWORD), offers the subcommands the tree names and
// the flags of the command's own FlagSet; it opens no data folder.
func TestBashCompletionFromTheTree(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on this machine: the bash completion cannot be run")
	}
	home := filepath.Join(t.TempDir(), "data")
	r := rehomeCLI(t, home, "completion", "bash")
	if r.code != 0 || !strings.Contains(r.stdout, "complete ") {
		t.Fatalf("completion bash: %+v", r)
	}
	script := filepath.Join(t.TempDir(), "rehome.bash")
	if err := os.WriteFile(script, []byte(r.stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	// comp WORD… completes the last word; it prints the candidates.
	const sim = `source "$1" || exit 9
complete -p rehome
comp() { COMP_WORDS=("$REHOME" "$@"); COMP_CWORD=$#; COMPREPLY=(); _rehome; echo "${COMPREPLY[*]}"; }
comp actions ''
comp actions list --j
comp -v sandbox image s
comp ''
comp run --file data.csv --ti
comp assistants show some-id ''
comp frobnicate ''
`
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", sim, "bash", script)
	cmd.Env = append(cleanEnv(), "REHOME_HOME="+home, "REHOME="+rehomeBin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	want := []string{
		"complete -o default -F _rehome rehome",
		"add list test key signin allow-local rm",
		"--json",
		"save status",
		"", // the top level: checked below
		"--timeout",
		"", // an id: nothing offered, bash completes file names
		"",
	}
	if len(lines) != len(want) {
		t.Fatalf("bash printed %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		if i != 4 && lines[i] != w {
			t.Errorf("line %d: %q, want %q", i, lines[i], w)
		}
	}
	top := strings.Fields(lines[4])
	for _, c := range tree().shown() {
		if !strings.Contains(" "+lines[4]+" ", " "+c.name+" ") {
			t.Errorf("the top level does not offer %s: %q", c.name, lines[4])
		}
	}
	if len(top) != len(tree().shown()) || strings.Contains(lines[4], completeCommand) || strings.Contains(lines[4], " man ") {
		t.Errorf("the top level offers more than the shown commands: %q", lines[4])
	}
	if _, err := os.Stat(home); err == nil {
		t.Errorf("the completion created the data folder %s", home)
	}
}

// The other shells' scripts name the same hidden command, and a shell
// that is not one is a usage error.
func TestCompletionScripts(t *testing.T) {
	home := filepath.Join(t.TempDir(), "data")
	for _, sh := range []string{"zsh", "fish"} {
		r := rehomeCLI(t, home, "completion", sh)
		if r.code != 0 || !strings.Contains(r.stdout, completeCommand) {
			t.Errorf("completion %s: %+v", sh, r)
		}
		if p, err := exec.LookPath(sh); err == nil {
			f := filepath.Join(t.TempDir(), "rehome."+sh)
			os.WriteFile(f, []byte(r.stdout), 0o600)
			if out, err := exec.Command(p, "-n", f).CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", sh, err, out)
			}
		}
	}
	wantUsageError(t, rehomeCLI(t, home, "completion", "tcsh"), "bash, zsh or fish")
	wantUsageError(t, rehomeCLI(t, home, "completion"), "bash, zsh or fish")
	// A group's flags and subcommands both: audit runs alone, with flags.
	r := rehomeCLI(t, home, completeCommand, "audit", "--ai")
	if r.code != 0 || r.stdout != "--air-gapped\n" {
		t.Errorf("__complete audit --ai: %+v", r)
	}
	r = rehomeCLI(t, home, completeCommand, "audit", "c")
	if r.stdout != "compare\nchecklist\n" {
		t.Errorf("__complete audit c: %+v", r)
	}
	if _, err := os.Stat(home); err == nil {
		t.Errorf("the completion created the data folder %s", home)
	}
}
