package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/backend/store"
)

func openTestStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// hugeTranscript is what a hostile server and a chatty cell could make of
// one question without bounds: mib MiB each of thinking, words, code and
// output.
func hugeTranscript(mib int) *Transcript {
	big := strings.Repeat("x", mib<<20)
	return &Transcript{Question: "q", Answer: big, Stopped: StopAnswered, Turns: []Turn{
		{Text: big, Reasoning: big, Cells: []Cell{{Code: big, Via: "tool_call", Fed: "out",
			Result: CellResult{Stdout: big, Stderr: big, Files: []OutFile{{Name: "p.png", Kind: "plot", Path: "/p.png", DataURL: "data:image/png;base64," + big}}}}}},
		{Text: big}}}
}

func storedSize(t *testing.T, st *store.Store, id string) int {
	t.Helper()
	n := -1
	st.Each(store.Conversations, func(k string, raw []byte) (bool, error) {
		if k == id {
			n = len(raw)
		}
		return true, nil
	})
	return n
}

// A question holding 8×8 MiB is kept shortened within its bound and says
// so; ten such questions keep the conversation within its bound.
func TestConversationKeptWithinBounds(t *testing.T) {
	st := openTestStore(t)
	c := NewConversation()
	c.Add(hugeTranscript(8))
	if err := SaveConversation(st, c); err != nil {
		t.Fatal(err)
	}
	n := storedSize(t, st, c.ID)
	got, err := GetConversation(st, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("one question of %d MiB unbounded: kept %d bytes", 8*8, n)
	if n > MaxTranscriptBytes+4<<10 || !strings.Contains(got.Exchanges[0].Shortened, "rehome kept") ||
		!strings.Contains(got.Exchanges[0].Answer, "bytes left out") {
		t.Fatalf("kept %d bytes, shortened %q", n, got.Exchanges[0].Shortened)
	}
	for i := 0; i < 9; i++ {
		got.Add(hugeTranscript(8))
		if err := SaveConversation(st, got); err != nil {
			t.Fatal(err)
		}
	}
	if n = storedSize(t, st, c.ID); n > MaxConversationBytes {
		t.Fatalf("ten questions: %d bytes kept, over %d", n, MaxConversationBytes)
	}
	got, _ = GetConversation(st, c.ID)
	if len(got.Exchanges) != 10 || got.Questions != 10 {
		t.Fatalf("%d exchanges, %d questions", len(got.Exchanges), got.Questions)
	}
	t.Logf("ten questions of 64 MiB each: kept %d bytes", n)
	// A conversation that cannot fit (many questions at their smallest)
	// is refused with words that say what to do.
	full := NewConversation()
	for i := 0; i < 2100; i++ {
		full.Add(&Transcript{Question: strings.Repeat("q", 4<<10), Answer: strings.Repeat("a", 8<<10)})
	}
	if err := SaveConversation(st, full); !errors.Is(err, ErrConversationFull) || !strings.Contains(err.Error(), "start a new conversation") {
		t.Fatalf("a conversation over its bound: %v", err)
	}
}

// oldConversation is a record in the field order rehome wrote before
// summaries: the dates after the exchanges.
type oldConversation struct {
	Schema    int          `json:"schema"`
	ID        string       `json:"id"`
	Title     string       `json:"title"`
	Server    string       `json:"server"`
	Model     string       `json:"model"`
	Files     []FileInfo   `json:"files"`
	Exchanges []Transcript `json:"exchanges"`
	Created   time.Time    `json:"created"`
	Updated   time.Time    `json:"updated"`
}

// A list returns summaries bounded in size whatever is stored: a 100 MB
// record written by an older rehome, a new one, a small old one.
func TestListConversationsSummaries(t *testing.T) {
	st := openTestStore(t)
	now := time.Now().UTC().Truncate(time.Second)
	big := oldConversation{Schema: 1, ID: store.NewID(), Title: "huge", Model: "m", Files: []FileInfo{}, Created: now, Updated: now,
		Exchanges: []Transcript{{Question: "q", Answer: strings.Repeat("y", 100<<20)}}}
	if err := st.Put(store.Conversations, big.ID, big); err != nil {
		t.Fatal(err)
	}
	small := big
	small.ID, small.Title, small.Exchanges = store.NewID(), "small", []Transcript{{Question: "a"}, {Question: "b"}}
	st.Put(store.Conversations, small.ID, small)
	c := NewConversation()
	c.Model = "qwen"
	c.Add(&Transcript{Question: "new one", Answer: "ok"})
	if err := SaveConversation(st, c); err != nil {
		t.Fatal(err)
	}
	odd := NewConversation()
	odd.Title, odd.Model = "odd", strings.Repeat("m", 1<<20) // a server's model name of 1 MiB
	if err := SaveConversation(st, odd); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	list, err := ListConversations(st, 0)
	took := time.Since(start)
	if err != nil || len(list) != 4 {
		t.Fatalf("%d %v", len(list), err)
	}
	data, _ := json.Marshal(list)
	t.Logf("list of 4 (one of 100 MB, one with a 1 MiB model name): %d bytes in %s", len(data), took)
	if len(data) > 4<<10 {
		t.Errorf("summaries %d bytes", len(data))
	}
	byTitle := map[string]ConversationSummary{}
	for _, s := range list {
		byTitle[s.Title] = s
	}
	if s := byTitle["new one"]; s.ID != c.ID || s.Questions != 1 || s.Model != "qwen" || !s.Updated.Equal(c.Updated) {
		t.Errorf("new record: %+v", s)
	}
	if s := byTitle["small"]; s.Questions != 2 || !s.Updated.Equal(now) {
		t.Errorf("small old record: %+v", s)
	}
	if s := byTitle["odd"]; s.ID != odd.ID || len(s.Model) > 1<<10 {
		t.Errorf("a record with a huge field: %d bytes of model", len(s.Model))
	}
	if s := byTitle["huge"]; s.ID != big.ID || s.Questions != -1 || s.Size < 100<<20 {
		t.Errorf("huge old record: %+v", s)
	}
}

// BenchmarkListConversations lists 5 conversations, one of them an old
// 100 MB record, as summaries (now) and as whole records (main's way,
// the baseline).
func BenchmarkListConversations(b *testing.B) {
	st := openTestStore(b)
	for i := 0; i < 5; i++ {
		c := oldConversation{Schema: 1, ID: store.NewID(), Title: fmt.Sprint(i), Files: []FileInfo{}, Exchanges: []Transcript{{Question: "q", Answer: "a"}}}
		if i == 0 {
			c.Exchanges[0].Answer = strings.Repeat("y", 100<<20)
		}
		st.Put(store.Conversations, c.ID, c)
	}
	b.Run("whole-records-baseline", func(b *testing.B) {
		for range b.N {
			if _, err := store.List[Conversation](st, store.Conversations, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("summaries", func(b *testing.B) {
		for range b.N {
			if _, err := ListConversations(st, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
