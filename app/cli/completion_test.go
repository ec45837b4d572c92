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

// The zsh and fish scripts, run in a real zsh (its completion builtins
// stubbed: they need a terminal) and a real fish (complete -C): the same
// subcommands and flags, and file names where the tree has nothing.
func TestZshAndFishCompletion(t *testing.T) {
	if filepath.Base(rehomeBin) != "rehome" {
		t.Skipf("the binary under test is %s: the scripts complete the command rehome", rehomeBin)
	}
	home := filepath.Join(t.TempDir(), "data")
	sims := map[string]string{
		"zsh": `compdef() { print "compdef $*" }
source "$1" || exit 9
compadd() { [[ $1 == -a ]] && print -r -- ${(P)2} }
_files() { print files }
words=(rehome actions ""); CURRENT=3; _rehome
words=(rehome actions list --j); CURRENT=4; _rehome
words=(rehome run --file ""); CURRENT=4; _rehome
`,
		"fish": `source $argv[1]; or exit 9
complete -C "rehome actions " | string join " "
complete -C "rehome actions list --j"
complete -C "rehome run --file rehome.fi"
`,
	}
	want := map[string]string{
		"zsh":  "compdef _rehome rehome\nadd list test key signin allow-local rm\n--json\nfiles\n",
		"fish": "add allow-local key list rm signin test\n--json\nrehome.fish\n",
	}
	for _, sh := range []string{"zsh", "fish"} {
		t.Run(sh, func(t *testing.T) {
			shell, err := exec.LookPath(sh)
			if err != nil {
				t.Skipf("no %s on this machine: its completion cannot be run", sh)
			}
			r := rehomeCLI(t, home, "completion", sh)
			if r.code != 0 || !strings.Contains(r.stdout, completeCommand) {
				t.Fatalf("completion %s: %+v", sh, r)
			}
			dir := t.TempDir()
			script := filepath.Join(dir, "rehome."+sh)
			if err := os.WriteFile(script, []byte(r.stdout), 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"-f", "-c", sims[sh], "zsh", script}
			if sh == "fish" {
				args = []string{"--no-config", "-c", sims[sh], script}
			}
			cmd := exec.Command(shell, args...)
			cmd.Dir = dir
			cmd.Env = append(cleanEnv(), "REHOME_HOME="+home, "PATH="+filepath.Dir(rehomeBin)+":"+os.Getenv("PATH"), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir)
			out, err := cmd.CombinedOutput()
			if err != nil || string(out) != want[sh] {
				t.Errorf("%s: %v\n%q, want %q", sh, err, out, want[sh])
			}
		})
	}
	if _, err := os.Stat(home); err == nil {
		t.Errorf("the completion created the data folder %s", home)
	}
}

// A shell that is not one is a usage error; __complete answers a group
// that runs alone with its flags and its subcommands.
func TestCompletionScripts(t *testing.T) {
	home := filepath.Join(t.TempDir(), "data")
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
	r = rehomeCLI(t, home, completeCommand, "help", "sandbox", "i")
	if r.stdout != "image\n" {
		t.Errorf("__complete help sandbox i: %+v", r)
	}
	if _, err := os.Stat(home); err == nil {
		t.Errorf("the completion created the data folder %s", home)
	}
}
