package sandbox

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containers/podman/v4/pkg/bindings/containers"
	"github.com/containers/podman/v4/pkg/bindings/images"

	"rehome/internal/testsupport/teamhost"
	recipe "rehome/sandbox/recipe"

	"rehome/sandbox/link"
)

// containerSideKeys are the spec's fields whose paths are inside the
// container; any other absolute path in a spec would be read by the
// Podman service on its own machine.
var containerSideKeys = map[string]bool{"command": true, "env": true, "destination": true, "work_dir": true, "mask": true}

// hostPaths lists the spec's absolute paths outside containerSideKeys,
// and every string naming one of the folders given.
func hostPaths(t *testing.T, spec any, folders ...string) []string {
	t.Helper()
	data, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	var tree any
	json.Unmarshal(data, &tree)
	var out []string
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if key == "env" {
					k = "env"
				}
				walk(k, x)
			}
		case []any:
			for _, x := range v {
				walk(key, x)
			}
		case string:
			if strings.HasPrefix(v, "/") && !containerSideKeys[key] {
				out = append(out, key+"="+v)
			}
			for _, f := range folders {
				if strings.Contains(v, f) {
					out = append(out, key+"="+v)
				}
			}
		}
	}
	walk("", tree)
	return out
}

// jobSpec builds the spec of a run or a session the way Run and
// StartSession do (newJob, stageInputs, setInputs), on the file at path.
func jobSpec(t *testing.T, e *Engine, kind, path string) any {
	t.Helper()
	j, release, err := e.newJob(context.Background(), kind, "x", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	in, err := openInput(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.close)
	st, staged, _, done, err := e.stageInputs([]*input{in})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { done(); st.remove() })
	j.setInputs(staged)
	if kind == "session" {
		s, err := sessionSpec(DefaultLimits, j, time.Minute, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	return buildSpec(DefaultLimits, j)
}

// TestSentSpecNamesNoFileOfThisMachine: the spec sent to a service that
// cannot see our paths (a team host) names no file of this machine: no
// seccomp profile path, no bind mount, nothing in the cache or the
// input's folder. On the code before it named the profile in the cache
// folder (seccomp_profile_path=/var/cache/rehome/seccomp-….json), which
// the team host's service reads on its own machine. On every path (this
// machine's service too) the profile is the image's.
func TestSentSpecNamesNoFileOfThisMachine(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	input := filepath.Join(dir, "sales.csv")
	os.WriteFile(input, []byte("a\n1\n"), 0o600)
	for _, travel := range []bool{true, false} {
		e := &Engine{opts: Options{CacheDir: cache}, idsInUse: map[uint32]bool{}, owner: "test", image: "localhost/rehome-sandbox:test"}
		e.host.Rootless, e.host.FilesTravel, e.host.CgroupVersion = travel, travel, "v1"
		for _, kind := range []string{"run", "session"} {
			s := jobSpec(t, e, kind, input)
			raw, _ := json.Marshal(s)
			var m map[string]any
			json.Unmarshal(raw, &m)
			if m["seccomp_policy"] != "image" || m["seccomp_profile_path"] != nil {
				t.Errorf("%s (files travel %t): seccomp policy %v, path %v: want the image's profile", kind, travel, m["seccomp_policy"], m["seccomp_profile_path"])
			}
			if !travel {
				continue // a local run bind-mounts its staged inputs
			}
			if bad := hostPaths(t, s, dir, cache, CacheDir()); len(bad) > 0 {
				t.Errorf("the %s spec sent to a team host names files of this machine: %v", kind, bad)
			}
		}
	}
}

// The check of the stored image's label, on inspect data: this rehome's
// profile passes; no label, or another profile (one byte off, or Podman's
// default), is refused in words that name the host and the command.
func TestSeccompLabelCheck(t *testing.T) {
	e := &Engine{image: ImageRef()}
	e.host.FilesTravel, e.host.ServiceURI = true, "ssh://alice@gpu-box/run/user/1000/podman/podman.sock"
	fix := e.reloadCommand()
	if !strings.HasPrefix(fix, "rehome sandbox image load --podman ssh://alice@gpu-box/run/user/1000/podman/podman.sock ") {
		t.Errorf("fix %q", fix)
	}
	good := string(recipe.SeccompProfile())
	if err := e.checkSeccompLabel(map[string]string{recipe.SeccompLabel: good, "io.rehome.recipe": recipe.Digest()}, fix); err != nil {
		t.Fatalf("rehome's own profile refused: %v", err)
	}
	for name, labels := range map[string]map[string]string{
		"none":       nil,
		"recipe":     {"io.rehome.recipe": recipe.Digest()},
		"empty":      {recipe.SeccompLabel: ""},
		"one byte":   {recipe.SeccompLabel: strings.Replace(good, "SCMP_ACT_ERRNO", "SCMP_ACT_ALLOW", 1)},
		"unconfined": {recipe.SeccompLabel: "unconfined"},
	} {
		err := e.checkSeccompLabel(labels, fix)
		if !errors.Is(err, errImageSeccomp) {
			t.Errorf("%s: %v", name, err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "on gpu-box") || !strings.Contains(msg, "seccomp profile") || !strings.Contains(msg, "`"+fix+"`") {
			t.Errorf("%s: %s", name, msg)
		}
	}
	t.Logf("%v", e.checkSeccompLabel(nil, fix))
}

// The image recipe's tag covers the profile: a changed profile is a new
// image (and archive) name.
func TestImageChangesCarrySeccomp(t *testing.T) {
	want := "LABEL " + recipe.SeccompLabel + "=" + string(recipe.SeccompProfile())
	found := false
	for _, c := range imageChanges {
		found = found || c == want
	}
	if !found {
		t.Fatal("the image's changes set no seccomp label")
	}
	if strings.ContainsAny(string(recipe.SeccompProfile()), "\n") || !json.Valid(recipe.SeccompProfile()) {
		t.Fatal("the label is not one line of JSON")
	}
}

// The image this rehome builds carries its profile as the label Podman
// reads (on this machine's service).
func TestImageSeccompLabel(t *testing.T) {
	e := testEngine(t)
	img, err := images.GetImage(e.api(t.Context()), e.image, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.checkSeccompLabel(img.Labels, "-"); err != nil {
		t.Fatal(err)
	}
}

// teamEngineCache is an engine on the team account's service whose cache
// folder is root's own 0700 one: a profile written there (as the code
// before did) is out of the service's reach, as on a real team host.
func teamEngineCache(t *testing.T, opts Options) (*Engine, *teamhost.Host) {
	t.Helper()
	teamEngine(t, teamhost.User) // the image, loaded there
	h := teamhost.Ensure(t, teamhost.User)
	opts.Connect = link.ConnectOptions{URI: h.URI}
	opts.CacheDir = t.TempDir()
	if h.CanRead(opts.CacheDir) {
		t.Fatalf("%s reads %s: the test would prove nothing", h.User, opts.CacheDir)
	}
	e, err := New(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, h
}

const seccompProbe = `
try:
    os.memfd_create("x")
    print("memfd_create OK")
except OSError as e:
    print("memfd_create", errno.errorcode.get(e.errno))
`

// TestTeamHostSeccompHolds: a run and a session on the team host's
// service, whose spec names no file of this machine, still have rehome's
// profile: keyctl and add_key refused with EPERM, unshare -U,
// clone(CLONE_NEWUSER) and clone3 refused, memfd_create refused with
// EPERM. Podman's default profile allows all of them. On the code before
// the container could not be created (the service cannot read the
// profile's path in root's cache folder).
func TestTeamHostSeccompHolds(t *testing.T) {
	e, _ := teamEngineCache(t, Options{})
	code := probeKeyringPlant + probeUserNS[len(probeLibc):] + seccompProbe
	code = strings.ReplaceAll(code, "TOKEN", randomToken())
	check := func(what string, r *Result) {
		t.Logf("%s: %s %s", what, r.Stdout, r.Stderr)
		for _, want := range []string{"HELD keyctl: EPERM, add_key: EPERM", "\nHELD\n", "memfd_create EPERM"} {
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("%s on the team host: want %q in\n%s", what, want, r.Stdout)
			}
		}
		if strings.Contains(r.Stdout, "BROKEN") || strings.Contains(r.Stdout, "PLANTED") {
			t.Errorf("%s on the team host: the profile does not hold:\n%s", what, r.Stdout)
		}
	}
	res, err := e.Run(t.Context(), RunRequest{Code: code, OutputDir: filepath.Join(t.TempDir(), "out")}, nil)
	if err != nil {
		t.Fatalf("run on the team host: %v", err)
	}
	check("run", res)
	s, err := e.StartSession(t.Context(), SessionRequest{Dir: filepath.Join(t.TempDir(), "session"), Preload: []string{}})
	if err != nil {
		t.Fatalf("session on the team host: %v", err)
	}
	defer s.Stop(context.Background())
	cell, err := s.Exec(t.Context(), code, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("session", &cell.Result)
}

// tinyImage imports a one-file image without rehome's seccomp label (or
// with labels given) onto e's service under ref, removed at the end.
func tinyImage(t *testing.T, e *Engine, ref string, changes ...string) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "hello", Mode: 0o644, Size: 2, Typeflag: tar.TypeReg})
	tw.Write([]byte("hi"))
	tw.Close()
	api := e.api(t.Context())
	if _, err := images.Import(api, &buf, new(images.ImportOptions).WithReference(ref).WithChanges(append([]string{"CMD [\"/hello\"]"}, changes...))); err != nil {
		t.Fatalf("import %s: %v", ref, err)
	}
	t.Cleanup(func() {
		images.Remove(e.api(context.Background()), []string{ref}, new(images.RemoveOptions).WithForce(true))
	})
}

// TestTeamHostRefusesImageWithoutProfile: an image without the label, or
// with another profile in it, on the team host is refused before any
// container, for a run and a session, in words that say how to reload
// the image there. (A name of its own: the shared tag stays untouched.)
func TestTeamHostRefusesImageWithoutProfile(t *testing.T) {
	h := teamhost.Ensure(t, teamhost.User)
	for name, changes := range map[string][]string{
		"no label":      nil,
		"other profile": {"LABEL " + recipe.SeccompLabel + `={"defaultAction":"SCMP_ACT_ALLOW"}`},
	} {
		ref := fmt.Sprintf("localhost/rehome-seccomp-test:%s-%s", strings.ReplaceAll(name, " ", "-"), strings.ToLower(NewRunID()))
		e, err := New(t.Context(), Options{Connect: link.ConnectOptions{URI: h.URI}, Image: ref, CacheDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		tinyImage(t, e, ref, changes...)
		_, err = e.Run(t.Context(), RunRequest{Code: "print(1)"}, nil)
		t.Logf("%s: %v", name, err)
		if !errors.Is(err, errImageSeccomp) || !strings.Contains(err.Error(), "rehome sandbox image load --podman "+h.URI) {
			t.Errorf("%s: run: %v", name, err)
		}
		_, err = e.StartSession(t.Context(), SessionRequest{Dir: filepath.Join(t.TempDir(), "session"), Preload: []string{}})
		if !errors.Is(err, errImageSeccomp) {
			t.Errorf("%s: session: %v", name, err)
		}
		if list, err := containers.List(e.api(t.Context()), new(containers.ListOptions).WithAll(true).
			WithFilters(map[string][]string{"ancestor": {ref}})); err != nil || len(list) != 0 {
			t.Errorf("%s: a container of the refused image exists: %v %+v", name, err, list)
		}
	}
}

// BenchmarkImageCheck: what a run pays before it starts to look for the
// image on this machine's service: its existence alone (the code before)
// against its inspection and the label's SHA-256 (now).
func BenchmarkImageCheck(b *testing.B) {
	e, err := New(b.Context(), Options{})
	if err != nil {
		b.Skipf("no Podman sandbox here: %v", err)
	}
	defer e.Close()
	if err := e.EnsureImage(b.Context(), nil); err != nil {
		b.Skipf("no sandbox image here: %v", err)
	}
	api := e.api(b.Context())
	b.Run("exists (before)", func(b *testing.B) {
		for b.Loop() {
			if ok, err := images.Exists(api, e.image, nil); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("inspect+label (now)", func(b *testing.B) {
		for b.Loop() {
			img, err := images.GetImage(api, e.image, nil)
			if err != nil {
				b.Fatal(err)
			}
			if err := e.checkSeccompLabel(img.Labels, "-"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
