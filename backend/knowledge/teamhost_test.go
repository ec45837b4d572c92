package knowledge_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rehome/backend/core"
	"rehome/backend/knowledge"
	"rehome/internal/testsupport/teamhost"
	"rehome/sandbox"
	"rehome/sandbox/link"
)

// Knowledge files are parsed in the sandbox of a team host whose service
// cannot read them (another account's rootless Podman): the blob travels
// over the connection, and its pages are indexed as locally.
func TestTeamHostParsesKnowledge(t *testing.T) {
	h := teamhost.Ensure(t, teamhost.User)
	h.EnsureSandboxImage(t)
	data, src := t.TempDir(), t.TempDir()
	c := core.New(data, core.Options{Sandbox: sandbox.Options{Connect: link.ConnectOptions{URI: h.URI}}})
	if err := c.Open(); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pdf := filepath.Join(src, "manual.pdf")
	os.WriteFile(pdf, simplePDF("Introduction to the kettle and its care.", "The warranty lasts two years from the date of purchase."), 0o600)
	k := knowledge.New(filepath.Join(data, "knowledge"), knowledge.Options{Run: c.Runs()})
	defer k.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := k.Add(ctx, "a1", []string{pdf}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].State != knowledge.StateIndexed {
		t.Fatalf("the PDF on the team host: %+v", res)
	}
	t.Logf("%s", res[0].Message)
	e, err := c.Engine(ctx)
	if err != nil || !e.Host().FilesTravel {
		t.Fatalf("the engine does not send files to %s: %v", h.URI, err)
	}
	hits, err := k.Search(ctx, "a1", "warranty two years", "", 3)
	if err != nil || len(hits) == 0 || hits[0].File != "manual.pdf" || max(hits[0].Page, hits[0].PageEnd) != 2 {
		t.Errorf("search after a parse on the team host: %+v %v", hits, err)
	}
}
