package sandbox

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containers/podman/v4/pkg/bindings/containers"
	"github.com/containers/podman/v4/pkg/bindings/images"

	"rehome/internal/testsupport/teamhost"

	"rehome/sandbox/link"
)

// Root's rehome against a team account's rootless Podman service, through
// its unix socket: the service runs as another user, who cannot read
// root's files (teamhost checks it), so every input that reaches the code
// travelled over the connection.

// teamEngine is an engine on the team account's service, with the image
// loaded there.
func teamEngine(t *testing.T, user string) (*Engine, *teamhost.Host) {
	t.Helper()
	h := teamhost.Ensure(t, user)
	ref, archive := teamhost.SandboxImage()
	if ref != ImageRef() {
		t.Fatalf("teamhost's image %s, the sandbox's %s", ref, ImageRef())
	}
	if _, err := os.Stat(archive); err != nil {
		// The archive of this recipe: the local engine saves it.
		if err := testEngine(t).SaveImage(t.Context(), archive); err != nil {
			t.Fatal(err)
		}
	}
	h.EnsureSandboxImage(t)
	e, err := New(t.Context(), Options{Connect: link.ConnectOptions{URI: h.URI}})
	if err != nil {
		t.Fatalf("engine on %s's service: %v", user, err)
	}
	t.Cleanup(func() { e.Close() })
	if !e.Host().FilesTravel {
		t.Fatalf("the engine on %s's service (%s) would bind-mount root's paths: FilesTravel is false", user, h.URI)
	}
	if !e.Host().Rootless {
		t.Fatalf("%s's service is not rootless", user)
	}
	return e, h
}

// A unix socket served by another uid makes files travel; root's own
// service does not.
func TestFilesTravelDetected(t *testing.T) {
	h := teamhost.Ensure(t, teamhost.User)
	c, err := link.Open(t.Context(), link.ConnectOptions{URI: h.URI, NoStart: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.FilesTravel {
		t.Errorf("%s (served by uid %d) not seen as unable to read our files", h.URI, h.UID)
	}
	local := testEngine(t)
	if local.Host().FilesTravel {
		t.Errorf("this user's own service %s is taken for one that cannot see our files", local.Host().ServiceURI)
	}
}

const plotCSV = `
import pandas as pd, matplotlib.pyplot as plt, os, stat
df = pd.read_csv('/mnt/data/%s')
print('rows', len(df), 'sum', int(df['v'].sum()))
st = os.stat('/mnt/data/%s')
print('mode %%o uid %%d gid %%d' %% (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid))
for attempt in (lambda: open('/mnt/data/%s', 'a'), lambda: os.chmod('/mnt/data/%s', 0o666)):
    try:
        attempt(); print('CHANGED the input')
    except OSError as e:
        print('refused', e.errno)
df.plot(x='x', y='v'); plt.savefig('/mnt/data/chart.png')
`

// An input CSV that is read and plotted: the plot comes back over the
// attach stream, from a service that could not have mounted the file.
func TestTeamHostRunPlotsCSV(t *testing.T) {
	e, h := teamEngine(t, teamhost.User)
	dir := t.TempDir() // 0700, root's
	csv := filepath.Join(dir, "sales.csv")
	os.WriteFile(csv, []byte("x,v\n1,10\n2,20\n3,12\n"), 0o644)
	if h.CanRead(csv) {
		t.Fatalf("%s reads %s: the test would prove nothing", h.User, csv)
	}
	var stages []string
	res, err := e.Run(t.Context(), RunRequest{Code: fmt.Sprintf(plotCSV, "sales.csv", "sales.csv", "sales.csv", "sales.csv"), InputPath: csv, OutputDir: filepath.Join(dir, "out"), InlinePlots: true},
		func(p Progress) { stages = append(stages, p.Stage+": "+p.Message) })
	if err != nil {
		t.Fatalf("run on the team host: %v", err)
	}
	t.Logf("stdout: %s\nstderr: %s\nstages: %v", res.Stdout, res.Stderr, stages)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "rows 3 sum 42") {
		t.Fatalf("the code did not read the CSV: exit %d, %s %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	// Root's, readable by the sandbox user's group only: the code can
	// neither write nor chmod it.
	if !strings.Contains(res.Stdout, "mode 440 uid 0 gid 10001") || strings.Contains(res.Stdout, "CHANGED") || strings.Count(res.Stdout, "refused 13") != 1 || strings.Count(res.Stdout, "refused 1\n") != 1 {
		t.Errorf("the sent input is not a read-only file only the sandbox user reads: %s", res.Stdout)
	}
	var plot, chart bool
	for _, f := range res.Files {
		switch {
		case f.Kind == "plot" && f.Size > 1000 && strings.HasPrefix(f.DataURL, "data:image/png;base64,"):
			plot = true
		case f.Name == "chart.png" && f.Size > 1000:
			chart = true
		case f.Name == "sales.csv":
			t.Errorf("the input came back as an output")
		}
	}
	if !plot || !chart {
		t.Errorf("the plot and the saved chart did not come back: %+v", res.Files)
	}
	if res.Input == nil || res.Input.Path != "/mnt/data/sales.csv" {
		t.Errorf("input reported as %+v", res.Input)
	}
}

// An input of mode 0600 in a 0700 folder of root's: a bind mount of it (or
// of rehome's private copy in /run/rehome-stage) cannot work against
// another user's service — the old path fails there — and the file sent
// over the connection does.
func TestTeamHostPrivateInput(t *testing.T) {
	e, h := teamEngine(t, teamhost.User)
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	secret := filepath.Join(dir, "secret.csv")
	os.WriteFile(secret, []byte("x,v\n1,41\n2,1\n"), 0o600)
	if h.CanRead(secret) {
		t.Fatalf("%s reads %s", h.User, secret)
	}
	code := fmt.Sprintf(plotCSV, "secret.csv", "secret.csv", "secret.csv", "secret.csv")

	// The old path: bind mounts of local paths.
	e.mu.Lock()
	e.host.FilesTravel = false
	e.mu.Unlock()
	res, err := e.Run(t.Context(), RunRequest{Code: code, InputPath: secret}, nil)
	e.mu.Lock()
	e.host.FilesTravel = true
	e.mu.Unlock()
	if err == nil && res.ExitCode == 0 && strings.Contains(res.Stdout, "sum 42") {
		t.Fatal("a bind mount of root's private file worked on another user's service: the team host can read root's files")
	}
	t.Logf("bind mounts on the team host: %v %v", err, res)

	res, err = e.Run(t.Context(), RunRequest{Code: code, InputPath: secret}, nil)
	if err != nil {
		t.Fatalf("the sent input: %v", err)
	}
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "rows 2 sum 42") {
		t.Fatalf("the code did not read the sent private file: exit %d %s %s", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// Inputs over the cap are refused in words before any container exists.
func TestTeamHostInputCap(t *testing.T) {
	e, _ := teamEngine(t, teamhost.User)
	big := filepath.Join(t.TempDir(), "huge.csv")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(maxSentBytes + 1)
	f.Close()
	_, err = e.Run(t.Context(), RunRequest{Code: "print(1)", InputPath: big}, nil)
	if !errors.Is(err, errInputTooBig) {
		t.Fatalf("an input of %d bytes: %v, want errInputTooBig", maxSentBytes+1, err)
	}
	for _, w := range []string{"huge.csv is 512 MiB", "at most 512 MiB", "smaller file"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the refusal does not say %q: %v", w, err)
		}
	}
	_, err = e.StartSession(t.Context(), SessionRequest{Dir: filepath.Join(t.TempDir(), "s"), InputPaths: []string{big}})
	if !errors.Is(err, errInputTooBig) {
		t.Fatalf("a session with the same file: %v, want errInputTooBig", err)
	}
}

// A session's files (the first and the further ones, job.more, as the ask
// loop gives a conversation's files and knowledge) travel too, and the
// kernel keeps them across cells.
func TestTeamHostSessionFiles(t *testing.T) {
	e, _ := teamEngine(t, teamhost.User)
	dir := t.TempDir()
	a := filepath.Join(dir, "a.csv")
	b := filepath.Join(dir, "notes.txt")
	os.WriteFile(a, []byte("v\n40\n2\n"), 0o600)
	os.WriteFile(b, []byte("the answer is in a.csv\n"), 0o644)
	s, err := e.StartSession(t.Context(), SessionRequest{Dir: filepath.Join(dir, "session"), InputPaths: []string{a, b}})
	if err != nil {
		t.Fatalf("session on the team host: %v", err)
	}
	defer s.Stop(context.Background())
	c1, err := s.Exec(t.Context(), "import pandas as pd\ndf = pd.read_csv('/mnt/data/a.csv')\nprint(int(df.v.sum()), open('/mnt/data/notes.txt').read().strip())", 60*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c1.Stdout, "42 the answer is in a.csv") {
		t.Fatalf("cell 1: %s %s %s", c1.Status, c1.Stdout, c1.Stderr)
	}
	c2, err := s.Exec(t.Context(), "import matplotlib.pyplot as plt\nplt.plot(df.v); plt.show()\nprint(sorted(__import__('os').listdir('/mnt/data')))", 60*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c2.Stdout, "['a.csv', 'notes.txt']") {
		t.Errorf("cell 2 sees %s %s", c2.Stdout, c2.Stderr)
	}
	plots := 0
	for _, f := range c2.Files {
		if f.Kind == "plot" {
			plots++
		}
		if f.Name == "a.csv" || f.Name == "notes.txt" {
			t.Errorf("an input came back as a cell's output: %s", f.Name)
		}
	}
	if plots != 1 {
		t.Errorf("cell 2's plot did not come back: %+v", c2.Files)
	}
}

// Nothing of a sent input is left on the team host's disk outside the
// container: while the code holds it and after, no file of its size
// appears in the account's home, /tmp, /var/tmp or its runtime folder.
func TestTeamHostNoCopyOnDisk(t *testing.T) {
	e, h := teamEngine(t, teamhost.User)
	data := make([]byte, 3*MiB+17)
	for i := range data {
		data[i] = byte('a' + i%26)
	}
	in := filepath.Join(t.TempDir(), "big.txt")
	os.WriteFile(in, data, 0o600)
	since := time.Now()
	scan := func() []string {
		var found []string
		for _, root := range []string{h.Home, "/tmp", "/var/tmp", h.RuntimeDir} {
			filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return nil
				}
				if fi, err := d.Info(); err == nil && fi.Size() == int64(len(data)) && fi.ModTime().After(since) && !strings.HasPrefix(p, filepath.Dir(in)) {
					found = append(found, p)
				}
				return nil
			})
		}
		return found
	}
	var during []string
	res, err := e.Run(t.Context(), RunRequest{Code: "import os,time\nprint(os.path.getsize('/mnt/data/big.txt'), flush=True)\ntime.sleep(3)", InputPath: in},
		func(p Progress) {
			if p.Stage == "output" && during == nil {
				during = append(scan(), "scanned")
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Stdout, fmt.Sprint(len(data))) {
		t.Fatalf("the code did not get the file: %s %s", res.Stdout, res.Stderr)
	}
	if len(during) != 1 {
		t.Errorf("while the code ran, copies of the input on the team host's disk: %v", during)
	}
	if after := scan(); len(after) > 0 {
		t.Errorf("after the run, copies of the input on the team host's disk: %v", after)
	}
}

// Two people's accounts on one team host: neither sees the other's
// sandboxes, sessions or sent files.
func TestTeamHostUsersIsolated(t *testing.T) {
	e1, h1 := teamEngine(t, teamhost.User)
	e2, h2 := teamEngine(t, teamhost.User2)
	dir := t.TempDir()
	f := filepath.Join(dir, "payroll.csv")
	os.WriteFile(f, []byte("name,pay\nann,1\n"), 0o600)
	sdir := filepath.Join(dir, "sessions", "s1")
	s, err := e1.StartSession(t.Context(), SessionRequest{Dir: sdir, InputPaths: []string{f}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop(context.Background())
	c, err := s.Exec(t.Context(), "print(open('/mnt/data/payroll.csv').read().count('ann'))", 60*time.Second, nil)
	if err != nil || !strings.Contains(c.Stdout, "1") {
		t.Fatalf("cell: %v %+v", err, c)
	}
	// The session's container, from the other account's service.
	list, err := containers.List(e2.api(t.Context()), new(containers.ListOptions).WithAll(true))
	if err != nil {
		t.Fatal(err)
	}
	for _, ct := range list {
		if ct.ID == s.Info().Container || ct.Labels[labelSession] == s.ID() {
			t.Errorf("%s's service lists %s's session %s", h2.User, h1.User, s.ID())
		}
	}
	if _, err := containers.Inspect(e2.api(t.Context()), s.Info().Container, nil); err == nil {
		t.Errorf("%s's service inspects %s's container", h2.User, h1.User)
	}
	got, err := e2.ListSessions(t.Context(), filepath.Dir(sdir))
	if err != nil {
		t.Fatal(err)
	}
	for _, si := range got {
		if si.ID == s.ID() && si.Container != "" {
			if _, err := containers.Inspect(e2.api(t.Context()), si.Container, nil); err == nil {
				t.Errorf("%s's engine reaches %s's session", h2.User, h1.User)
			}
		}
	}
	// The sent file, from the other account on the host: not through the
	// container's root, not in the first account's storage or runtime.
	data, err := containers.Inspect(e1.api(t.Context()), s.Info().Container, nil)
	if err != nil {
		t.Fatal(err)
	}
	pid := data.State.Pid
	for _, p := range []string{
		fmt.Sprintf("/proc/%d/root/mnt/data/payroll.csv", pid),
		filepath.Join(h1.Home, ".local/share/containers/storage"),
		h1.RuntimeDir,
	} {
		if out, err := h2.Command("ls", p).CombinedOutput(); err == nil {
			t.Errorf("%s lists %s: %s", h2.User, p, out)
		}
	}
	if h2.CanRead(fmt.Sprintf("/proc/%d/root/mnt/data/payroll.csv", pid)) {
		t.Errorf("%s reads %s's sent file", h2.User, h1.User)
	}
	// And the first account's own service sees it (the check can fail).
	if !h1.CanRead(fmt.Sprintf("/proc/%d/root/mnt/data/payroll.csv", pid)) {
		t.Logf("%s itself cannot read its container's file through /proc (expected: it is the sandbox user's, 0400)", h1.User)
	}
}

// The first run on a team host without the image loads it over the
// connection by itself, saying so in words with its progress, and the
// image the service then holds is checked against the bytes sent.
func TestTeamHostImageFirstRun(t *testing.T) {
	e, h := teamEngine(t, teamhost.User2)
	if _, err := images.Remove(e.api(t.Context()), []string{ImageRef()}, new(images.RemoveOptions).WithForce(true)); len(err) > 0 {
		t.Fatalf("remove the image from %s's storage: %v", h.User, err)
	}
	t.Cleanup(func() { h.EnsureSandboxImage(t) })
	st, err := e.ImageStatus(t.Context())
	if err != nil || st.State != imageLoadsOnFirstUse {
		t.Fatalf("image status on the team host without the image: %+v %v", st, err)
	}
	var msgs []string
	start := time.Now()
	res, err := e.Run(t.Context(), RunRequest{Code: "print('hello from', __import__('socket').gethostname())"}, func(p Progress) {
		if p.Stage == "image" {
			msgs = append(msgs, p.Message)
		}
	})
	t.Logf("first run with the load: %s; progress:\n%s", time.Since(start).Round(100*time.Millisecond), strings.Join(msgs, "\n"))
	if err != nil {
		t.Fatalf("first run on a team host without the image: %v", err)
	}
	if !strings.Contains(res.Stdout, "hello from sandbox") {
		t.Fatalf("the run: %s %s", res.Stdout, res.Stderr)
	}
	onto := "loading the sandbox image onto the Podman service at " + h.URI + ": "
	n := 0
	for _, m := range msgs {
		if strings.HasPrefix(m, onto) && strings.Contains(m, " MiB of ") {
			n++
		}
	}
	if n < 2 {
		t.Errorf("the load's progress was not told in words (%q… X MiB of Y MiB): %q", onto, msgs)
	}
	if st, _ := e.ImageStatus(t.Context()); st.State != imageReady {
		t.Errorf("after the first run the image is %s", st.State)
	}
}

// What the service holds after a load is compared with the bytes sent: an
// archive whose config is not the image the service reports is refused.
func TestLoadedImageChecked(t *testing.T) {
	e := testEngine(t)
	a := newArchiveSum()
	tw := tar.NewWriter(a)
	for name, body := range map[string]string{"manifest.json": `[{"Config":"c.json"}]`, "c.json": `{"not":"the image"}`} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body))})
		tw.Write([]byte(body))
	}
	tw.Close()
	err := e.checkLoaded(t.Context(), a, "forged.tar")
	if !errors.Is(err, errArchiveDamaged) {
		t.Fatalf("an archive whose config is not the stored image: %v, want errArchiveDamaged", err)
	}
	t.Logf("refused: %v", err)
}

// A big input tells how far its sending is, in words, and arrives whole.
func TestTeamHostSendProgress(t *testing.T) {
	e, h := teamEngine(t, teamhost.User)
	in := filepath.Join(t.TempDir(), "big.bin")
	data := make([]byte, 9*MiB)
	for i := range data {
		data[i] = byte(i * 7)
	}
	os.WriteFile(in, data, 0o600)
	var msgs []string
	res, err := e.Run(t.Context(), RunRequest{Code: "import hashlib\nprint(hashlib.sha256(open('/mnt/data/big.bin','rb').read()).hexdigest())", InputPath: in},
		func(p Progress) {
			if p.Stage == "sending" {
				msgs = append(msgs, p.Message)
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if !strings.Contains(res.Stdout, hex.EncodeToString(sum[:])) {
		t.Errorf("the file did not arrive whole: %s %s", res.Stdout, res.Stderr)
	}
	want := "sent big.bin to the Podman service at " + h.URI + ": 9 MiB"
	if len(msgs) == 0 || msgs[len(msgs)-1] != want {
		t.Errorf("sending progress %q, want it to end with %q", msgs, want)
	}
}
