package cli

// End to end on a team host, as its users would: root's rehome reaches the
// rootless Podman service of another account (rehome-team, teamhost) over
// a real sshd, as ssh://rehome-team@127.0.0.1:PORT/run/user/UID/podman/podman.sock.
// That account cannot read root's files, so only files sent over the
// connection can work: a run with an input file, a session (start with a
// file, a cell), and `rehome ask` against a recorded model server.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/internal/testsupport/sshdtest"
	"rehome/internal/testsupport/teamhost"
	"rehome/sandbox"
)

// teamCLIHost is rehome-team's rootless service behind a real sshd logged
// in as that account, its image loaded, and a HOME whose known_hosts
// knows it.
func teamCLIHost(t *testing.T) (*cliTeamHost, *teamhost.Host) {
	t.Helper()
	needPodmanCLI(t)
	th := teamhost.Ensure(t, teamhost.User)
	ref, archive := teamhost.SandboxImage()
	if ref != sandbox.ImageRef() {
		t.Fatalf("teamhost's image %s, rehome's %s", ref, sandbox.ImageRef())
	}
	if _, err := os.Stat(archive); err != nil {
		e, err := sandbox.New(context.Background(), sandbox.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err = e.EnsureImage(context.Background(), nil); err == nil {
			err = e.SaveImage(context.Background(), archive)
		}
		e.Close()
		if err != nil {
			t.Fatalf("the image archive for the team host: %v", err)
		}
	}
	th.EnsureSandboxImage(t)
	srv := sshdtest.Start(t, sshdtest.Options{User: teamhost.User})
	home := t.TempDir()
	os.Mkdir(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "known_hosts"), []byte(srv.HostKeyLine+"\n"), 0o600)
	h := &cliTeamHost{srv: srv, uri: srv.URI(th.Socket), home: home}
	return h, th
}

func TestTeamHostEndToEnd(t *testing.T) {
	h, th := teamCLIHost(t)
	srv := h.srv
	data := t.TempDir()
	remote := []string{"--podman", h.uri, "--identity", srv.ClientKey}

	// The input in a folder only root can read (0700): a bind mount of it
	// would fail on rehome-team's service.
	private := t.TempDir()
	csv := filepath.Join(private, "sales.csv")
	os.WriteFile(csv, []byte("region,revenue\nNorth,100\nSouth,230\n"), 0o600)
	if th.CanRead(csv) {
		t.Fatalf("%s can read %s: the test would prove nothing", teamhost.User, csv)
	}
	script := filepath.Join(private, "s.py")
	os.WriteFile(script, []byte("import pandas as pd\nprint(int(pd.read_csv('/mnt/data/sales.csv').revenue.sum()))\n"), 0o600)
	r := h.run(t, data, append([]string{"run", "--timeout", "2m", "--file", csv}, append(remote, script)...)...)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "330\n") {
		t.Fatalf("run with a file on the team host: %d %q %q", r.code, r.stdout, r.stderr)
	}

	// A session: its relay holds the link; a cell reads the file.
	r = h.run(t, data, append([]string{"session", "start", "--file", csv, "--idle", "5m", "--timeout", "2m"}, remote...)...)
	if r.code != 0 {
		t.Fatalf("session start on the team host: %+v", r)
	}
	id := strings.TrimSpace(r.stdout)
	t.Cleanup(func() { h.run(t, data, "session", "stop", id) })
	cell := filepath.Join(private, "cell.py")
	os.WriteFile(cell, []byte("import pandas as pd\ndf = pd.read_csv('sales.csv')\nprint(df.revenue.max())\n"), 0o600)
	r = h.run(t, data, "session", "exec", id, cell)
	if r.code != 0 || !strings.Contains(r.stdout, "230") {
		t.Fatalf("a session's cell on the team host: %+v", r)
	}
	h.run(t, data, "session", "stop", id)

	// An answer: the model's code runs on the team host.
	llm := recordedOllama(t, "ollama-tools")
	salesCSV, _ := filepath.Abs(filepath.Join("..", "..", "backend", "llm", "testdata", "sales.csv"))
	ask := filepath.Join(private, "sales.csv")
	data2, _ := os.ReadFile(salesCSV)
	os.WriteFile(ask, data2, 0o600)
	r = h.run(t, data, append([]string{"ask", "--server", llm.URL + "/v1", "--timeout", "2m", "--file", ask, "Which region had the most revenue?", "--json"}, remote...)...)
	if r.code != 0 {
		t.Fatalf("ask on the team host: %+v", r)
	}
	var tr struct {
		Answer  string
		Stopped string
		Cells   []struct {
			Result struct {
				ExitCode int `json:"exit_code"`
				Stdout   string
				Files    []struct{ Path string }
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &tr); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, r.stdout)
	}
	if tr.Stopped != "answered" || !strings.HasPrefix(tr.Answer, "South had the most revenue: 230.0.") || len(tr.Cells) != 1 ||
		tr.Cells[0].Result.ExitCode != 0 || !strings.Contains(tr.Cells[0].Result.Stdout, "South    230.0") || len(tr.Cells[0].Result.Files) != 1 {
		t.Fatalf("the answer from the team host: %+v", tr)
	}
	if png, err := os.ReadFile(tr.Cells[0].Result.Files[0].Path); err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Fatalf("the plot from the team host: %v", err)
	}
}
