package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/internal/testsupport/oauthtest"
)

// rehome actions signin against a real OAuth provider on 127.0.0.1: the
// address printed, the user's browser follows it to rehome's loopback
// callback (PKCE checked by the provider), the tokens kept — signed_in in
// the list, never printed, in no file of the data folder but the
// credentials file — and the action's call signed with them.
func TestActionsSignInCLI(t *testing.T) {
	home := t.TempDir()
	shop := oauthtest.New(t)
	id := addAssistant(t, home, "--name", "Signed")["id"].(string)
	r := rehomeCLI(t, home, "actions", "add", id, shopSchemaFile(t, shop.API.URL), "--auth", "oauth",
		"--client-id", "rehome-test", "--auth-url", shop.Provider.URL+"/authorize", "--token-url", shop.Provider.URL+"/token", "--allow-local")
	if r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	if r = rehomeCLI(t, home, "actions", "test", id, "getOrder", "--args", `{"id": "o-1"}`); r.code == 0 {
		t.Fatalf("a call before the sign-in: %+v", r)
	}

	cmd := exec.Command(rehomeBin, "actions", "signin", id, "shop")
	cmd.Env = append(cleanEnv(), "REHOME_HOME="+home)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	errPipe, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		var said strings.Builder
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			said.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), "http://") {
				done <- oauthtest.Browser(sc.Text())
				return
			}
		}
		done <- &exec.ExitError{Stderr: []byte(said.String())}
	}()
	select {
	case err := <-done:
		if err != nil {
			cmd.Process.Kill()
			t.Fatalf("the browser: %v", err)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("no sign-in address printed within 30 s")
	}
	if err := cmd.Wait(); err != nil || !strings.Contains(stdout.String(), "signed in") {
		t.Fatalf("signin: %v %q", err, stdout.String())
	}

	r = rehomeCLI(t, home, "actions", "list", id, "--json")
	var list []struct {
		SignedIn bool `json:"signed_in"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 1 || !list[0].SignedIn {
		t.Fatalf("list after the sign-in: %+v", r)
	}
	r = rehomeCLI(t, home, "actions", "test", id, "getOrder", "--args", `{"id": "o-1"}`)
	if r.code != 0 || !strings.Contains(r.stdout, "HTTP 200") || shop.LastAuth() != "Bearer "+oauthtest.AccessCanary+"-1" {
		t.Fatalf("the signed call: %+v, sent %q", r, shop.LastAuth())
	}
	printed := stdout.String() + r.stdout + r.stderr + rehomeCLI(t, home, "assistants", "show", id, "--json").stdout
	held := false
	filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		has := bytes.Contains(b, []byte(oauthtest.AccessCanary)) || bytes.Contains(b, []byte(oauthtest.RefreshCanary))
		if filepath.Base(p) == "action-secrets.json" {
			held = has
		} else if has {
			t.Errorf("a token is in %s", p)
		}
		return nil
	})
	if !held || strings.Contains(printed, oauthtest.AccessCanary) || strings.Contains(printed, oauthtest.RefreshCanary) {
		t.Fatalf("the credentials file holds the tokens: %v; printed: %v", held, strings.Contains(printed, "canary"))
	}
}
