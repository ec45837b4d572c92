package cli

import (
	"bytes"
	"strings"
	"testing"
)

// The tree holds together: every command either runs or has
// subcommands, names are unique in each group, and each command that runs
// says its own path in its --help (a row that names another command's
// function would say that one's).
func TestCommandTreeHoldsTogether(t *testing.T) {
	var walk func(c command, path string)
	leaves := 0
	walk = func(c command, path string) {
		if c.run == nil && len(c.subs) == 0 {
			t.Errorf("%s neither runs nor has subcommands", path)
		}
		if c.summary == "" && path != "rehome" {
			t.Errorf("%s has no summary", path)
		}
		seen := map[string]bool{}
		for _, s := range c.subs {
			if seen[s.name] {
				t.Errorf("%s has two subcommands %s", path, s.name)
			}
			seen[s.name] = true
			walk(s, path+" "+s.name)
		}
		if c.run == nil || c.name == completeCommand {
			return
		}
		leaves++
		var out bytes.Buffer
		probe(c, &out)
		if !strings.HasPrefix(out.String(), "usage: "+path+"\n") && !strings.HasPrefix(out.String(), "usage: "+path+" ") {
			t.Errorf("%s --help: %.80q", path, out.String())
		}
	}
	walk(tree(), "rehome")
	if leaves < 95 {
		t.Errorf("%d commands that run: the tree lost some", leaves)
	}
}

// What runs in the terminal beside a holder is what the tree marks here
// or bare (door.go); the rest crosses to the holder.
func TestWhatRunsHereIsMarkedOnTheTree(t *testing.T) {
	for _, args := range [][]string{
		{}, {"serve"}, {"version"}, {"help", "actions"}, {"man"}, {"hw", "--json"}, {"fit"},
		{"session", "relay", "--dir", "x"}, {"mcp", "config"}, {"completion", "bash"}, {completeCommand, "a"},
	} {
		if !runsHere(args) {
			t.Errorf("%q crosses to the holder; it runs in the terminal", args)
		}
	}
	for _, args := range [][]string{
		{"assistants", "list"}, {"session", "start"}, {"mcp", "serve"}, {"doctor"}, {"models", "serve"},
		{"frob"}, {"audit", "--all"}, {"settings"},
	} {
		if runsHere(args) {
			t.Errorf("%q runs in the terminal; it crosses to the holder", args)
		}
	}
	if !runsBare([]string{"help"}) || !runsBare([]string{"man"}) || runsBare([]string{"version"}) {
		t.Error("bare: help and man touch no data folder; version opens its log")
	}
}
