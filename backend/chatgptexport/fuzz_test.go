package chatgptexport

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fuzzLimits are small bounds, so that the fuzzer's inputs reach them.
var fuzzLimits = Limits{MaxJSONBytes: 4 << 20, MaxConversationBytes: 1 << 20, MaxConversations: 20,
	MaxNodes: 200, MaxAlternatives: 4, MaxEntries: 50, MaxFileBytes: 64 << 10, MaxFilesBytes: 256 << 10}

// inputTime bounds one input's work: the seeds take milliseconds.
const inputTime = 10 * time.Second

// zipOf wraps conversations.json, and one attachment named as ChatGPT
// names them, in a zip.
func zipOf(conv []byte) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create("conversations.json")
	w.Write(conv)
	w, _ = zw.Create("file-TtBb1mZjSoJXG51L5fZeGn-a.png")
	w.Write([]byte("\x89PNG\r\n\x1a\n"))
	zw.Close()
	return b.Bytes()
}

// FuzzExport feeds data exports to the reader and the converter, seeded
// from the real exports in testdata (whole, one conversation alone, and
// in a zip): nothing may panic; an export is refused in words (one of the
// package's errors) or read, within its bounds — no more conversations,
// messages, branches or file bytes than Limits allow.
func FuzzExport(f *testing.F) {
	// The real conversations of at most 40 KB, one by one, as an array and
	// in a zip: the fuzzer minimizes each new input it finds, and on a
	// 237 KB file that took the whole budget.
	for _, name := range []string{"testdata/export-2023.json", "testdata/gpt-2025.json"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		var convs []json.RawMessage
		if err := json.Unmarshal(data, &convs); err != nil {
			f.Fatal(err)
		}
		for _, c := range convs {
			if len(c) > 40<<10 {
				continue
			}
			f.Add([]byte(c), false)
			f.Add(append(append([]byte("["), c...), ']'), true)
		}
	}
	f.Add([]byte(`[{"id":"a","mapping":{"a":{"parent":"b"},"b":{"parent":"a","children":["a"]}},"current_node":"a"}]`), true)
	f.Fuzz(func(t *testing.T, data []byte, zipped bool) {
		// Go's fuzzer has no bound on one input's time: a slow input
		// stalls it silently. Panicking here makes it a crasher, kept.
		slow := time.AfterFunc(inputTime, func() { panic(fmt.Sprintf("one input took over %s", inputTime)) })
		defer slow.Stop()
		name := "conversations.json"
		if zipped {
			data, name = zipOf(data), "export.zip"
		}
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		e, err := Open(p, fuzzLimits)
		if err != nil {
			inWords(t, err)
			return
		}
		defer e.Close()
		budget, dir := fuzzLimits.MaxFilesBytes, t.TempDir()
		for calls := 0; ; calls++ {
			if calls > fuzzLimits.MaxConversations+1 {
				t.Fatalf("Next was called %d times and never ended", calls)
			}
			r, err := e.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				inWords(t, err)
				if errors.Is(err, ErrBadConversation) {
					continue
				}
				return
			}
			cv, err := Convert(r, fuzzLimits)
			if err != nil {
				inWords(t, err)
				continue
			}
			withinBounds(t, cv)
			if len(cv.Assets) > len(data) {
				t.Fatalf("%d files pointed at by %d bytes", len(cv.Assets), len(data))
			}
			got, err := e.SaveFiles(cv, filepath.Join(dir, "c"), &budget)
			if err != nil {
				inWords(t, err)
				return
			}
			if budget < 0 || got.Bytes > fuzzLimits.MaxFilesBytes {
				t.Fatalf("files over their bound: %d bytes, %d left", got.Bytes, budget)
			}
		}
	})
}

// inWords: an error is one of the package's, and says something.
func inWords(t *testing.T, err error) {
	t.Helper()
	if err.Error() == "" {
		t.Fatal("an empty error")
	}
	for _, want := range []error{ErrNotExport, ErrTooBig, ErrUnsafeZip, ErrBadConversation} {
		if errors.Is(err, want) {
			return
		}
	}
	t.Fatalf("an error that is none of the package's: %v", err)
}

func withinBounds(t *testing.T, cv *Converted) {
	t.Helper()
	c := cv.Conversation
	if len(c.Exchanges) > fuzzLimits.MaxNodes || len(c.Alternatives) > fuzzLimits.MaxAlternatives || cv.Branches > fuzzLimits.MaxAlternatives {
		t.Fatalf("%d exchanges, %d alternatives: over the bounds", len(c.Exchanges), len(c.Alternatives))
	}
	for _, a := range c.Alternatives {
		if len(a.Exchanges) > fuzzLimits.MaxNodes || a.From < 0 || a.From > len(c.Exchanges) {
			t.Fatalf("an alternative of %d exchanges from %d", len(a.Exchanges), a.From)
		}
	}
}
