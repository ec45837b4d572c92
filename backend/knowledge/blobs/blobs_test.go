package blobs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestPutOnceByHashAndRefuseOthers(t *testing.T) {
	dir, src := t.TempDir(), t.TempDir()
	s := New(dir, 16)
	p := filepath.Join(src, "a.txt")
	os.WriteFile(p, []byte("hello"), 0o644)
	b, err := s.Put(context.Background(), p)
	if err != nil || b.SHA256 != "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" || b.Size != 5 {
		t.Fatalf("%+v %v", b, err)
	}
	st, _ := os.Stat(b.Path)
	if st.Mode().Perm() != 0o400 {
		t.Errorf("mode %v", st.Mode())
	}
	q := filepath.Join(src, "b.txt")
	os.WriteFile(q, []byte("hello"), 0o644)
	if b2, err := s.Put(context.Background(), q); err != nil || b2.Path != b.Path {
		t.Fatalf("same bytes: %+v %v", b2, err)
	}
	os.WriteFile(q, []byte("seventeen bytes!!"), 0o644)
	if _, err := s.Put(context.Background(), q); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	for _, bad := range []string{"../etc/passwd", "", "2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824"} {
		if s.Path(bad) != "" || s.Remove(bad) == nil {
			t.Errorf("%q is taken as a hash", bad)
		}
	}
	if err := s.Remove(b.SHA256); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(b.SHA256); err != nil {
		t.Errorf("removing twice: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Put(ctx, p); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
