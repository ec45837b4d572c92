package store

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

type record struct {
	Schema int               `json:"schema"`
	ID     string            `json:"id"`
	Text   string            `json:"text"`
	N      int               `json:"n"`
	Tags   []string          `json:"tags"`
	Map    map[string]string `json:"map"`
	When   time.Time         `json:"when"`
}

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func TestRoundTripEveryBucket(t *testing.T) {
	s, path := openTemp(t)
	want := map[Bucket][]record{}
	for _, b := range Buckets {
		for i := 0; i < 3; i++ {
			r := record{Schema: 1, ID: NewID(), Text: string(b) + " ünïcödé \x00 \"quoted\"", N: i,
				Tags: []string{"a", "b"}, Map: map[string]string{"k": "v"}, When: time.Now().UTC().Round(0)}
			if err := s.Put(b, r.ID, r); err != nil {
				t.Fatal(err)
			}
			want[b] = append(want[b], r)
		}
	}
	// Reopen: the records must survive the process's handle.
	s.Close()
	s2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for _, b := range Buckets {
		for _, r := range want[b] {
			var got record
			if err := s2.Get(b, r.ID, &got); err != nil {
				t.Fatalf("%s %s: %v", b, r.ID, err)
			}
			if !reflect.DeepEqual(got, r) {
				t.Fatalf("%s: got %+v want %+v", b, got, r)
			}
		}
		list, err := List[record](s2, b, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 3 || list[0].ID != want[b][2].ID || list[2].ID != want[b][0].ID {
			t.Fatalf("%s: list not newest first: %+v", b, list)
		}
		if n, _ := s2.Count(b); n != 3 {
			t.Fatalf("%s count = %d", b, n)
		}
	}
	if v, _ := s2.Version(); v != SchemaVersion {
		t.Fatalf("schema version %d", v)
	}
}

func TestGetDeleteMissing(t *testing.T) {
	s, _ := openTemp(t)
	var r record
	if err := s.Get(Assistants, "nope", &r); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get missing: %v", err)
	}
	if err := s.Delete(Assistants, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Delete missing: %v", err)
	}
	id := NewID()
	if err := s.Put(Assistants, id, record{ID: id}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(Assistants, id); err != nil {
		t.Fatal(err)
	}
	if err := s.Get(Assistants, id, &r); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted record still there: %v", err)
	}
	if err := s.Put("nobucket", id, r); err == nil {
		t.Fatal("put into a missing bucket succeeded")
	}
}

func TestListLimit(t *testing.T) {
	s, _ := openTemp(t)
	for i := 0; i < 10; i++ {
		id := NewID()
		s.Put(Runs, id, record{ID: id, N: i})
	}
	got, err := List[record](s, Runs, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0].N != 9 || got[3].N != 6 {
		t.Fatalf("limit 4: %+v", got)
	}
}

func TestIDsSortByTime(t *testing.T) {
	var ids []string
	for i := 0; i < 1000; i++ {
		ids = append(ids, NewID())
	}
	if !sort.StringsAreSorted(ids) {
		t.Fatal("ids do not sort in creation order")
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] || len(id) != 26 {
			t.Fatalf("bad or duplicate id %q", id)
		}
		seen[id] = true
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	_, path := openTemp(t)
	// Write a future schema version behind the store's back.
	db, err := bolt.Open(path+"2", 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error {
		b, _ := tx.CreateBucketIfNotExists([]byte(meta))
		return b.Put([]byte("schema_version"), []byte{0, 0, 0, 0, 0, 0, 0, 99})
	})
	db.Close()
	_, err = Open(path+"2", Options{})
	if err == nil || !strings.Contains(err.Error(), "newer rehome") {
		t.Fatalf("opening a newer schema: %v", err)
	}
}

func TestMigrationFromEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Close() // a file with no buckets: schema 0
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.Version(); v != SchemaVersion {
		t.Fatalf("not migrated: %d", v)
	}
	for _, b := range Buckets {
		if _, err := s.Count(b); err != nil {
			t.Fatalf("bucket %s missing after migration: %v", b, err)
		}
	}
}

func TestBackupIsConsistentCopy(t *testing.T) {
	s, _ := openTemp(t)
	for i := 0; i < 50; i++ {
		id := NewID()
		s.Put(Assistants, id, record{ID: id, Text: strings.Repeat("x", 3000)})
	}
	dst := filepath.Join(t.TempDir(), "backup.db")
	n, err := s.BackupFile(dst)
	if err != nil || n == 0 {
		t.Fatalf("backup: %d %v", n, err)
	}
	b, err := Open(dst, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if c, _ := b.Count(Assistants); c != 50 {
		t.Fatalf("backup holds %d assistants", c)
	}
	if p, err := b.Check(); err != nil || len(p) != 0 {
		t.Fatalf("backup check: %v %v", p, err)
	}
	if _, err := s.BackupFile(filepath.Join(t.TempDir(), "no", "such", "dir", "b.db")); err == nil {
		t.Fatal("backup into a missing folder succeeded")
	}
}

func TestCheckFindsCorruption(t *testing.T) {
	s, path := openTemp(t)
	for i := 0; i < 200; i++ {
		id := NewID()
		s.Put(Runs, id, record{ID: id, Text: strings.Repeat("y", 500)})
	}
	s.Close()
	// Scribble over a data page in the middle of the file.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pg := os.Getpagesize()
	for i := 4 * pg; i < 4*pg+64; i++ {
		data[i] = 0xff
	}
	os.WriteFile(path, data, 0o600)
	s2, err := Open(path, Options{})
	if err != nil {
		t.Logf("open refused the damaged file: %v", err)
		return // refusing to open a damaged file is also an honest answer
	}
	defer s2.Close()
	problems, err := s2.Check()
	if err == nil && len(problems) == 0 {
		t.Fatal("check found nothing in a scribbled file")
	}
	t.Logf("check found %d problems, first: %v", len(problems), problems[0])
}

// TestSecondProcessGetsLockError opens the database here and tries again
// from a child process, which must give up quickly with a clear message.
func TestSecondProcessGetsLockError(t *testing.T) {
	if os.Getenv("REHOME_LOCK_CHILD") != "" {
		_, err := Open(os.Getenv("REHOME_LOCK_DB"), Options{})
		if err == nil {
			os.Stdout.WriteString("opened\n")
			os.Exit(0)
		}
		os.Stdout.WriteString(err.Error() + "\n")
		if errors.Is(err, ErrLocked) {
			os.Exit(3)
		}
		os.Exit(4)
	}
	s, path := openTemp(t)
	_ = s
	cmd := exec.Command(os.Args[0], "-test.run=^TestSecondProcessGetsLockError$")
	cmd.Env = append(os.Environ(), "REHOME_LOCK_CHILD=1", "REHOME_LOCK_DB="+path)
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("child: %v, output %q", err, out.String())
	}
	msg := out.String()
	if !strings.Contains(msg, path) || !strings.Contains(msg, "another rehome") {
		t.Fatalf("lock message does not name the path and the cause: %q", msg)
	}
	if took > 5*time.Second {
		t.Fatalf("second open took %v, want about a second", took)
	}
	t.Logf("second process refused after %v: %s", took.Round(time.Millisecond), strings.TrimSpace(msg))
}
