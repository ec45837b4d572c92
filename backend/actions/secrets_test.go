package actions

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// secretsWriters is how many keys each writer adds.
const secretsWriters = 40

// TestSecretsWriterProcess is the other process of
// TestSecretsTwoProcesses: it adds its keys to the credentials file of
// $REHOME_SECRETS_DIR (and is skipped when run on its own).
func TestSecretsWriterProcess(t *testing.T) {
	dir := os.Getenv("REHOME_SECRETS_DIR")
	if dir == "" {
		t.Skip("skipped: the helper process of TestSecretsTwoProcesses")
	}
	s := NewSecrets(dir)
	for i := range secretsWriters {
		if err := s.Update(fmt.Sprintf("child/%d", i), func(x *Secret) { x.Key = "k" }); err != nil {
			t.Fatal(err)
		}
	}
}

// Two processes writing the credentials file at the same time (a CLI
// `actions add` while the window refreshes a token) lose nothing: each
// read-change-write holds the file's lock across processes.
func TestSecretsTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestSecretsWriterProcess$", "-test.count=1")
	child.Env = append(os.Environ(), "REHOME_SECRETS_DIR="+dir)
	s := NewSecrets(dir)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	for i := range secretsWriters {
		if err := s.Update("parent/"+strconv.Itoa(i), func(x *Secret) { x.Key = "k" }); err != nil {
			t.Fatal(err)
		}
	}
	if err := child.Wait(); err != nil {
		t.Fatalf("the other process: %v", err)
	}
	m, err := s.load()
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 2*secretsWriters {
		t.Fatalf("%d of %d keys kept: two processes' writes lost updates", len(m), 2*secretsWriters)
	}
	if fi, err := os.Stat(s.Path() + ".lock"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the lock file: %v %v", fi, err)
	}
}
