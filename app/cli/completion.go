package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// Shell completion, from the command tree. `rehome completion SHELL`
// prints a script; at completion time the script asks `rehome __complete
// WORD…` (the command line's words after rehome, the last the one being
// completed), which answers from the tree and the command's own flags,
// opening no data folder and no network. Where it has nothing to offer (a
// file, an id, a flag's value) the shell completes file names.

// completeCommand is the hidden command the scripts ask.
const completeCommand = "__complete"

// rootFlags are the flags rehome takes before a command (cli.go).
var rootFlags = []string{"--help", "--verbose", "--version"}

// cmdCompletion is `rehome completion bash|zsh|fish`.
func cmdCompletion(env *cliEnv, args []string) int {
	fs := env.flags("completion", "completion bash|zsh|fish")
	shell, code, ok := parseOne(env, fs, args, "completion takes a shell: bash, zsh or fish")
	if !ok {
		return code
	}
	script, ok := completionScripts[shell]
	if !ok {
		return env.usage("completion: no script for %q: bash, zsh or fish", shell)
	}
	fmt.Fprint(env.stdout, script)
	return exitOK
}

// cmdComplete is the hidden `rehome __complete WORD…`: the completions of
// the last word, one a line. Its words are a command line's, never its
// own flags.
func cmdComplete(env *cliEnv, args []string) int {
	for _, c := range completions(args) {
		fmt.Fprintln(env.stdout, c)
	}
	return exitOK
}

// completions are the candidates for the last of words: a flag where it
// starts with a dash (rehome's own before a command, else the command's),
// else the subcommands of the command the words before it name, if every
// one of them names a command (after help, as without it).
func completions(words []string) []string {
	if len(words) == 0 {
		words = []string{""}
	}
	for len(words) > 1 && (words[0] == "-v" || words[0] == "--verbose") {
		words = words[1:]
	}
	cur, done := words[len(words)-1], words[:len(words)-1]
	if len(done) > 0 && done[0] == "help" && !strings.HasPrefix(cur, "-") {
		return completions(words[1:]) // help COMMAND…: the commands
	}
	c := tree()
	path := c.walk(done)
	if len(path) > 0 {
		c = path[len(path)-1]
	}
	var cands []string
	switch {
	case strings.HasPrefix(cur, "-") && len(path) == 0:
		cands = rootFlags
	case strings.HasPrefix(cur, "-"):
		cands = flagsOf(c)
	case len(path) == len(done) && !c.hidden:
		for _, s := range c.shown() {
			cands = append(cands, s.name)
		}
	}
	var out []string
	for _, s := range cands {
		if strings.HasPrefix(s, cur) {
			out = append(out, s)
		}
	}
	return out
}

// flagsOf is c's flags (its FlagSet's, as --help shows them), as --NAME.
func flagsOf(c command) []string {
	fs := probe(c, io.Discard).flagSet
	if fs == nil {
		return nil
	}
	names := []string{"--help"}
	fs.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
	return names
}

// completionScripts are what `rehome completion` prints, by shell.
var completionScripts = map[string]string{
	"bash": `# bash completion for rehome: source <(rehome completion bash), or install
# it as /usr/share/bash-completion/completions/rehome.
_rehome() {
	local IFS=$'\n'
	COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)" -- "${COMP_WORDS[COMP_CWORD]}"))
}
complete -o default -F _rehome rehome
`,
	"zsh": `#compdef rehome
# zsh completion for rehome: source <(rehome completion zsh) after compinit,
# or install it as _rehome in a folder of $fpath.
_rehome() {
	local -a cands
	cands=(${(f)"$(${words[1]} __complete "${(@)words[2,CURRENT]}" 2>/dev/null)"})
	if (( ${#cands} )); then
		compadd -a cands
	else
		_files
	fi
}
if [[ $funcstack[1] == _rehome ]]; then _rehome "$@"; else compdef _rehome rehome; fi
`,
	"fish": `# fish completion for rehome: rehome completion fish | source, or install it
# as ~/.config/fish/completions/rehome.fish.
function __rehome_complete
    set -l words (commandline -opc)
    set -l cmd $words[1]
    set -e words[1]
    $cmd __complete $words (commandline -ct) 2>/dev/null
end
function __rehome_has_completions
    set -l c (__rehome_complete)
    test (count $c) -gt 0
end
complete -c rehome -n __rehome_has_completions -f -a '(__rehome_complete)'
`,
}
