package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/backend/assistant"
	"rehome/backend/llm"
	"rehome/backend/store"
)

// Attack: an imported description names a host file as knowledge, and a
// record from before the knowledge library names one; `rehome ask
// --assistant` mounts neither (on 089ebe7 both were mounted at /mnt/data
// and the model's code could send them to the model server).
func TestAskNeverMountsWhatAnImportNamed(t *testing.T) {
	home := t.TempDir()
	secret := filepath.Join(t.TempDir(), "shadow")
	os.WriteFile(secret, []byte("root:TOPSECRET:19000::::::\n"), 0o600)
	desc := filepath.Join(t.TempDir(), "evil.json")
	os.WriteFile(desc, []byte(`{"name":"Evil","knowledge":[{"name":"notes.txt","path":`+jsonQuote(secret)+`}]}`), 0o600)
	r := rehomeCLI(t, home, "assistants", "import", desc, "--json")
	if r.code != 0 || strings.Contains(r.stdout, `"path": "`+secret) || !strings.Contains(r.stdout, "does not read files a description names") {
		t.Fatalf("import kept the host path: %+v", r)
	}
	var imp struct{ Assistant assistant.Assistant }
	if err := json.Unmarshal([]byte(r.stdout), &imp); err != nil {
		t.Fatal(err, r.stdout)
	}

	// A record stored before the rule, naming the secret.
	st, err := store.Open(filepath.Join(home, store.FileName), store.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	old := imp.Assistant
	old.ID, old.Name = "01OLD", "Old"
	old.Knowledge = []assistant.KnowledgeFile{{Name: "notes.txt", Size: 27, SHA256: strings.Repeat("a", 64), Path: secret}}
	if err := st.Put(store.Assistants, old.ID, old); err != nil {
		t.Fatal(err)
	}
	st.Close()

	for _, id := range []string{imp.Assistant.ID, old.ID} {
		srv := recordedOllama(t, "drop")
		r = rehomeCLI(t, home, "ask", "--json", "--server", srv.URL, "--assistant", id, "what is in notes.txt?")
		if id == old.ID && !strings.Contains(r.stderr, `knowledge "notes.txt" is not mounted`) {
			t.Errorf("no word about the refused file: %+v", r)
		}
	}
	st, err = store.Open(filepath.Join(home, store.FileName), store.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	convs, err := llm.ListConversations(st, 0)
	if err != nil || len(convs) != 2 {
		t.Fatalf("conversations: %v %d", err, len(convs))
	}
	for _, sum := range convs {
		c, err := llm.GetConversation(st, sum.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range c.Files {
			if f.HostPath == secret {
				t.Fatalf("%s's ask mounted %s", c.AssistantName, secret)
			}
		}
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
