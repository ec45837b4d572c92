package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestSessionSpecHardenedAsRun: a session's container spec carries the
// same hardening as a one-shot run's, field by field (every field of the
// spec but its name, labels, command, stdin, lifetime and host id range),
// rootful and rootless, with an owner-only input and a world-readable one
// staged the same way. On 089ebe7 the session had no seccomp profile and
// no user namespace of its own.
func TestSessionSpecHardenedAsRun(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.csv")
	open := filepath.Join(dir, "open.csv")
	os.WriteFile(secret, []byte("a\n1\n"), 0o600)
	os.WriteFile(open, []byte("b\n2\n"), 0o644)
	for _, rootless := range []bool{false, true} {
		e := &Engine{opts: Options{CacheDir: t.TempDir()}, idsInUse: map[uint32]bool{}, owner: "test", image: "localhost/rehome-sandbox:test"}
		e.host.Rootless = rootless
		e.host.CgroupVersion = "v1"
		spec := func(kind string) map[string]any {
			j, release, err := e.newJob(context.Background(), kind, "x", false)
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			var ins []*input
			for _, p := range []string{secret, open} {
				in, err := openInput(p)
				if err != nil {
					t.Fatal(err)
				}
				defer in.close()
				ins = append(ins, in)
			}
			st, staged, _, done, err := e.stageInputs(ins)
			if err != nil {
				t.Fatal(err)
			}
			defer st.remove()
			defer done()
			j.setInputs(staged)
			lim := DefaultLimits
			s := buildSpec(lim, j)
			if kind == "session" {
				if s, err = sessionSpec(lim, j, time.Minute, nil); err != nil {
					t.Fatal(err)
				}
			}
			if s.SeccompPolicy != "image" || s.SeccompProfilePath != "" || (!rootless && s.IDMappings == nil) {
				t.Errorf("%s rootless=%t: seccomp %q %q, id mappings %v", kind, rootless, s.SeccompPolicy, s.SeccompProfilePath, s.IDMappings)
			}
			data, _ := json.Marshal(s)
			var m map[string]any
			json.Unmarshal(data, &m)
			// Where the two may differ; the mounts' sources are the stages'
			// own random folders.
			for _, k := range []string{"name", "labels", "command", "stdin", "timeout", "idmappings"} {
				delete(m, k)
			}
			for _, mt := range m["mounts"].([]any) {
				if mt := mt.(map[string]any); mt["type"] == "bind" {
					mt["source"] = strings.Contains(mt["source"].(string), stageDirName) // staged, not the user's path
				}
			}
			return m
		}
		run, sess := spec("run"), spec("session")
		if len(run) < 25 {
			t.Fatalf("only %d fields compared", len(run))
		}
		for k := range mergeKeys(run, sess) {
			if !reflect.DeepEqual(run[k], sess[k]) {
				t.Errorf("rootless=%t: %s differs:\n run:     %v\n session: %v", rootless, k, run[k], sess[k])
			}
		}
	}
}

func mergeKeys(a, b map[string]any) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
