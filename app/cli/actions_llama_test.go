package cli

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// rehome ask with an assistant's action, driven by a real model:
// llama.cpp's llama-server serving the tiny model taught to call getOrder
// and then the consequential placeOrder, against a real API on
// 127.0.0.1. The GET is made each time without asking; the POST: without
// a terminal and --yes not made and the model told it was declined; with
// --yes made; on a real terminal (script) asked, "n" not made, "y" made.
func TestAskActionsRealModelCLI(t *testing.T) {
	needPodman(t)
	script := tinymodel.ActionScript()
	model := llamatest.Start(t, script)
	home := t.TempDir()
	srv, seen := shopServer(t)
	id := addAssistant(t, home, "--name", "Shop")["id"].(string)
	if r := rehomeCLIIn(t, home, strings.NewReader(cliCanary+"\n"), "actions", "add", id, shopSchemaFile(t, srv.URL), "--auth", "bearer", "--key-stdin", "--allow-local"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	count := func(method string) int {
		n := 0
		for _, h := range seen() {
			if strings.HasPrefix(h, method+" ") {
				n++
			}
		}
		return n
	}
	question := "What does o-42 total? Then order one A1."
	args := []string{"ask", "--assistant", id, "--server", model.URL, "--model", llamatest.Alias}
	for i, c := range []struct {
		yes  bool
		made int
		want string
	}{{false, 0, "declined"}, {true, 1, "HTTP 201"}} {
		a := append(append([]string{}, args...), "--json")
		if c.yes {
			a = append(a, "--yes")
		}
		r := rehomeCLI(t, home, append(a, question)...)
		if r.code != 0 {
			t.Fatalf("ask (yes=%v): %+v", c.yes, r)
		}
		var out struct {
			Answer string
			Turns  []struct {
				Tools []struct{ Name, Fed string }
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatal(err)
		}
		var fed []string
		for _, tu := range out.Turns {
			for _, u := range tu.Tools {
				fed = append(fed, u.Name+": "+u.Fed)
			}
		}
		if len(fed) != 2 || !strings.HasPrefix(fed[0], "getOrder: HTTP 200") || !strings.HasPrefix(fed[1], "placeOrder: ") ||
			!strings.Contains(fed[1], c.want) || out.Answer != strings.Join(script.Answer, "") {
			t.Fatalf("yes=%v: tools fed %q, answer %q", c.yes, fed, out.Answer)
		}
		if got := count("POST"); got != c.made {
			t.Fatalf("yes=%v: %d POSTs, want %d", c.yes, got, c.made)
		}
		if got := count("GET"); got != i+1 {
			t.Fatalf("yes=%v: %d GETs, want %d", c.yes, got, i+1)
		}
		if strings.Contains(r.stdout+r.stderr, cliCanary) {
			t.Fatal("the key was printed")
		}
	}
	// A real terminal: the user is asked, and the answer holds.
	if _, err := exec.LookPath("script"); err != nil {
		t.Fatal("no script(1) for the terminal prompt: apt-get install bsdutils")
	}
	for _, c := range []struct {
		answer string
		made   int
	}{{"n", 0}, {"y", 1}} {
		before := count("POST")
		line := rehomeBin + " " + strings.Join(args, " ") + fmt.Sprintf(" %q", question)
		cmd := exec.Command("script", "-qec", line, "/dev/null")
		cmd.Env = append(cleanEnv(), "REHOME_HOME="+home)
		cmd.Stdin = strings.NewReader(c.answer + "\n")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Shop wants to call placeOrder (POST on 127.0.0.1") ||
			!strings.Contains(string(out), strings.Join(script.Answer, "")) {
			t.Fatalf("answer %q: %v\n%s", c.answer, err, out)
		}
		if got := count("POST") - before; got != c.made {
			t.Fatalf("answer %q: %d POSTs made, want %d\n%s", c.answer, got, c.made, out)
		}
	}
}
