package mcphost

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var hostNameRE = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,22}[a-z0-9])?)?$`)

// FuzzParseHostConfig feeds other MCP hosts' configurations (files the
// user imports: LM Studio's, Claude Desktop's, Jan's, VS Code's) to
// ParseHostConfig, seeded from the hosts' own files in testdata/hostconfig.
// Nothing may panic; a file is refused in words (ErrBadServer) or read as
// one entry for each server the file names (no more than its bytes can
// hold, no more bytes than three times its own: an invalid byte
// reads as U+FFFD), sorted by the host's names,
// each named HostName of it (1–24 lower-case letters, digits and inner
// dashes; HostName of it is itself), its environment KEY=VALUE sorted by KEY.
// The entries, written back as a host's file, read back the same.
func FuzzParseHostConfig(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/hostconfig/*.json")
	if len(seeds) == 0 {
		f.Fatal("no host configurations in testdata/hostconfig")
	}
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"mcpServers":{"İ Ω --":{"command":"","args":["x"],"serverUrl":"http://h/","active":false,"env":{"a=b":"c","A":"1"}}},"servers":{"y":{}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		list, err := ParseHostConfig(data)
		if err != nil {
			if !errors.Is(err, ErrBadServer) || len(err.Error()) <= len(ErrBadServer.Error())+2 {
				t.Fatalf("refused, but not in words: %v", err)
			}
			return
		}
		if len(list) == 0 || len(list) > len(data)/len(`"":{}`) {
			t.Fatalf("a %d-byte file read as %d servers", len(data), len(list))
		}
		n := 0
		for i, e := range list {
			n += len(e.Name) + hostEntryBytes(t, e)
			if i > 0 && list[i-1].Name >= e.Name {
				t.Fatalf("not sorted by name: %q then %q", list[i-1].Name, e.Name)
			}
		}
		if n > 3*len(data) { // an invalid byte is read as U+FFFD, three
			t.Fatalf("a %d-byte file read as %d bytes of servers", len(data), n)
		}
		hostConfigRoundTrip(t, list)
	})
}

// hostEntryBytes checks one entry and counts its bytes.
func hostEntryBytes(t *testing.T, e HostEntry) int {
	t.Helper()
	s := e.Server
	if s.Name != HostName(e.Name) || !hostNameRE.MatchString(s.Name) || HostName(s.Name) != s.Name {
		t.Fatalf("%q named %q", e.Name, s.Name)
	}
	if len(s.Command) > 0 && s.Command[0] == "" {
		t.Fatalf("%q: a command without a program: %q", e.Name, s.Command)
	}
	keys := make([]string, len(s.Env))
	named := true // names without "=": the KEY of each KEY=VALUE is its own
	for i, kv := range s.Env {
		keys[i], _, _ = strings.Cut(kv, "=")
		named = named && envName.MatchString(keys[i])
	}
	if named && !slices.IsSorted(keys) {
		t.Fatalf("%q: environment not sorted by name: %q", e.Name, s.Env)
	}
	n := len(s.Name) + len(s.URL)
	for _, kv := range s.Env {
		if !strings.Contains(kv, "=") {
			t.Fatalf("%q: %q is no KEY=VALUE", e.Name, kv)
		}
		n += len(kv)
	}
	for _, c := range s.Command {
		n += len(c)
	}
	return n
}

// hostConfigRoundTrip writes list back as a host's file and reads it:
// the same entries (unless two environment variables came out as the
// same KEY=VALUE, which the file cannot say twice).
func hostConfigRoundTrip(t *testing.T, list []HostEntry) {
	t.Helper()
	type entry struct {
		Command  string            `json:"command,omitempty"`
		Args     []string          `json:"args,omitempty"`
		Env      map[string]string `json:"env,omitempty"`
		URL      string            `json:"url,omitempty"`
		Disabled bool              `json:"disabled,omitempty"`
	}
	doc := map[string]map[string]entry{"mcpServers": {}}
	for _, e := range list {
		if len(slices.Compact(slices.Clone(e.Server.Env))) != len(e.Server.Env) {
			return
		}
		w := entry{URL: e.Server.URL, Disabled: e.Server.Off}
		if len(e.Server.Command) > 0 {
			w.Command, w.Args = e.Server.Command[0], e.Server.Command[1:]
		}
		for _, kv := range e.Server.Env {
			k, v, _ := strings.Cut(kv, "=")
			if w.Env == nil {
				w.Env = map[string]string{}
			}
			w.Env[k] = v
		}
		doc["mcpServers"][e.Name] = w
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseHostConfig(data)
	if err != nil {
		t.Fatalf("written back, %s does not read: %v", data, err)
	}
	for i := range list {
		if i >= len(back) || !reflect.DeepEqual(list[i], back[i]) {
			t.Fatalf("written back as %s, reads as %+v; was %+v", data, back, list)
		}
	}
	if len(back) != len(list) {
		t.Fatalf("%d servers written back read as %d", len(list), len(back))
	}
}
