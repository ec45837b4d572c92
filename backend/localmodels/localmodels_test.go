package localmodels

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/store"
	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// tiny writes the tests' tiny llama GGUF (made from the vocabulary beside
// the llama-server build) into dir.
func tiny(t *testing.T, dir string) string {
	t.Helper()
	bin := llamatest.Need(t)
	return llamatest.Model(t, bin, dir, tinymodel.DefaultScript("sales.csv", "region", "revenue"))
}

func TestInspectRealGGUF(t *testing.T) {
	p := tiny(t, t.TempDir())
	m, err := Inspect(p)
	if err != nil {
		t.Fatal(err)
	}
	if m.Arch != "llama" || m.Layers != 2 || m.ContextLength <= 0 || m.Quant == "" || m.Embedding || m.Name != "tiny" || m.Size <= 0 {
		t.Fatalf("described as %+v", m)
	}
}

// Files that are not whole GGUF models are refused in words, each with
// what to do.
func TestInspectRefusesWhatIsNotAModel(t *testing.T) {
	dir := t.TempDir()
	good := tiny(t, dir)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		body []byte
		want string
	}{
		"empty.gguf":       {nil, "it is empty"},
		"zipped.gguf":      {[]byte("PK\x03\x04rest of a zip"), "zip archive"},
		"config.gguf":      {[]byte(`{"architectures": ["LlamaForCausalLM"]}`), "JSON text"},
		"safetensors.gguf": {[]byte("\x08\x00\x00\x00\x00\x00\x00\x00{}"), "converted first"},
		"half.gguf":        {data[:len(data)/2], "cut short"},
		"header-only.gguf": {data[:200], "does not parse"},
	}
	for name, c := range cases {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, c.body, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Inspect(p)
		if !errors.Is(err, ErrNotGGUF) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v (want %q)", name, err, c.want)
		}
	}
	if _, err := Inspect(filepath.Join(dir, "missing.gguf")); err == nil || !strings.Contains(err.Error(), "no file") {
		t.Errorf("missing: %v", err)
	}
	if _, err := Inspect(dir); err == nil || !strings.Contains(err.Error(), "not a file") {
		t.Errorf("folder: %v", err)
	}
}

func openStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dir
}

func TestAddListRemove(t *testing.T) {
	st, data := openStore(t)
	s := NewService(st, data)
	carried := t.TempDir()
	p := tiny(t, carried)
	ctx := context.Background()

	m, err := s.Add(ctx, p, AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Hash(p)
	if m.SHA256 != want || len(want) != 64 || m.Copied || m.Path != p {
		t.Fatalf("registered %+v (sha %s)", m, want)
	}
	if _, err := s.Add(ctx, p, AddOptions{}); !errors.Is(err, ErrExists) {
		t.Fatalf("the same name twice: %v", err)
	}
	if _, err := s.Add(ctx, p, AddOptions{Name: "../x"}); err == nil {
		t.Fatal("a name with a slash was taken")
	}
	var seen int64
	c, err := s.Add(ctx, p, AddOptions{Name: "tiny-copy", Copy: true, Progress: func(done, total int64) { seen = done }})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Copied || c.SHA256 != want || filepath.Dir(c.Path) != filepath.Join(data, "models") || seen != m.Size {
		t.Fatalf("copied %+v (progress %d)", c, seen)
	}
	if st, err := os.Stat(c.Path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the copy: %v %v", st, err)
	}
	all, err := s.List()
	if err != nil || len(all) != 2 || all[0].Name != "tiny" || all[1].Name != "tiny-copy" {
		t.Fatalf("list %+v %v", all, err)
	}
	// The carried file goes away: the copy still works, the other says so.
	os.Rename(p, p+".moved")
	if err := all[0].Check(); !errors.Is(err, ErrMissing) {
		t.Fatalf("moved file: %v", err)
	}
	if err := all[1].Check(); err != nil {
		t.Fatalf("the copy: %v", err)
	}
	os.Rename(p+".moved", p)
	// rm deletes rehome's copy, never the user's file.
	if _, err := s.Remove("tiny-copy"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.Path); !os.IsNotExist(err) {
		t.Fatalf("the copy stayed: %v", err)
	}
	if _, err := s.Remove("tiny"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the user's file was touched: %v", err)
	}
	if _, err := s.Get("tiny"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after rm: %v", err)
	}
}

func TestAddCancelled(t *testing.T) {
	st, data := openStore(t)
	s := NewService(st, data)
	p := tiny(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Add(ctx, p, AddOptions{Copy: true}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled copy: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(data, "models", "*")); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
	if all, _ := s.List(); len(all) != 0 {
		t.Fatalf("registered anyway: %+v", all)
	}
}
