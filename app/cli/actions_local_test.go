package cli

import (
	"strings"
	"testing"
)

// The terminal's path: an action on 127.0.0.1 added without --allow-local
// is refused (the API never asked), `actions list` says why and what to
// run; `actions allow-local` by the assistant's name lets it through, and
// --off takes it back. Every actions command takes the name.
func TestActionsAllowLocalCLI(t *testing.T) {
	home := t.TempDir()
	srv, seen := shopServer(t)
	addAssistant(t, home, "--name", "Corner Shop")
	if r := rehomeCLIIn(t, home, strings.NewReader(cliCanary+"\n"), "actions", "add", "corner shop", shopSchemaFile(t, srv.URL), "--auth", "bearer", "--key-stdin"); r.code != 0 {
		t.Fatalf("add by name: %+v", r)
	}
	r := rehomeCLI(t, home, "actions", "test", "Corner Shop", "getOrder", "--args", `{"id": "o-1"}`)
	if r.code != 1 || !strings.Contains(r.stderr, "not allowed to reach local addresses") || !strings.Contains(r.stderr, "rehome actions allow-local") {
		t.Fatalf("a local API without the allowance: %+v", r)
	}
	if len(seen()) != 0 {
		t.Fatalf("the API was asked without the allowance: %v", seen())
	}
	r = rehomeCLI(t, home, "actions", "list", "Corner Shop")
	if r.code != 0 || !strings.Contains(r.stdout, "may call local addresses: no — its server 127.0.0.1:") || !strings.Contains(r.stdout, "rehome actions allow-local 'Corner Shop' shop") {
		t.Fatalf("list: %+v", r)
	}
	if r = rehomeCLI(t, home, "actions", "allow-local", "Corner Shop", "shop"); r.code != 0 {
		t.Fatalf("allow-local: %+v", r)
	}
	r = rehomeCLI(t, home, "actions", "test", "Corner Shop", "getOrder", "--args", `{"id": "o-1"}`)
	if r.code != 0 || !strings.Contains(r.stdout, "HTTP 200") || len(seen()) != 1 {
		t.Fatalf("after allow-local: %+v, API saw %v", r, seen())
	}
	if r = rehomeCLI(t, home, "actions", "allow-local", "Corner Shop", "shop", "--off"); r.code != 0 {
		t.Fatalf("--off: %+v", r)
	}
	if r = rehomeCLI(t, home, "actions", "test", "Corner Shop", "getOrder", "--args", `{"id": "o-1"}`); r.code != 1 || len(seen()) != 1 {
		t.Fatalf("after --off: %+v", r)
	}
	if r = rehomeCLI(t, home, "actions", "rm", "Corner Shop", "shop"); r.code != 0 {
		t.Fatalf("rm by name: %+v", r)
	}
}
