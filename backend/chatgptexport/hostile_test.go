package chatgptexport

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// writeZip makes a zip of name → content.
func writeZip(t *testing.T, entries map[string][]byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "export.zip")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, data := range entries {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

// TestZipBomb: a conversations.json that expands 1000 times (32 MiB of
// spaces in a 32 KiB zip) is refused before it is read, in words.
func TestZipBomb(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bomb.zip")
	f, _ := os.Create(p)
	zw := zip.NewWriter(f)
	w, _ := zw.Create("conversations.json")
	w.Write([]byte("["))
	blank := bytes.Repeat([]byte(" "), 1<<20)
	for i := 0; i < 32; i++ {
		w.Write(blank)
	}
	w.Write([]byte("]"))
	zw.Close()
	f.Close()
	_, err := Open(p, Limits{})
	if !errors.Is(err, ErrUnsafeZip) || !strings.Contains(err.Error(), "zip bomb") {
		t.Fatalf("a zip bomb: %v", err)
	}
}

// TestZipBombThatLies: an entry whose header understates what it expands
// to is cut by the ratio as it is read.
func TestZipBombThatLies(t *testing.T) {
	var raw bytes.Buffer
	fw, _ := newDeflate(&raw)
	fw.Write([]byte("["))
	blank := bytes.Repeat([]byte(" "), 1<<20)
	for i := 0; i < 64; i++ {
		fw.Write(blank)
	}
	fw.Write([]byte("]"))
	fw.Close()
	p := filepath.Join(t.TempDir(), "liar.zip")
	f, _ := os.Create(p)
	zw := zip.NewWriter(f)
	w, _ := zw.CreateRaw(&zip.FileHeader{Name: "conversations.json", Method: zip.Deflate,
		CompressedSize64: uint64(raw.Len()), UncompressedSize64: uint64(raw.Len() * 2)})
	w.Write(raw.Bytes())
	zw.Close()
	f.Close()
	e, err := Open(p, Limits{})
	if err == nil {
		_, err = e.Next()
		e.Close()
	}
	if !errors.Is(err, ErrUnsafeZip) && !errors.Is(err, ErrNotExport) {
		t.Fatalf("a lying bomb: %v", err)
	}
	t.Logf("refused: %v", err)
}

// TestZipPaths: an entry that climbs out of its folder refuses the zip.
func TestZipPaths(t *testing.T) {
	for _, name := range []string{"../../etc/cron.d/x", "/etc/passwd", "a/../../b", `..\evil.png`, "C:/x"} {
		p := writeZip(t, map[string][]byte{"conversations.json": []byte("[]"), name: []byte("x")})
		_, err := Open(p, Limits{})
		if !errors.Is(err, ErrUnsafeZip) || !strings.Contains(err.Error(), "climbs out of its folder") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// fifo streams gen into a named pipe: a file of any size that never
// touches the disk.
func fifo(t *testing.T, gen func(w io.Writer)) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "conversations.json")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("skipped: no named pipes here: %v", err)
	}
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		gen(f)
	}()
	return p
}

// TestOneGigabyteConversation: a 1 GB conversations.json holding one
// conversation is refused at that conversation's bound (64 MiB), read as
// a stream: the heap stays far below the file.
func TestOneGigabyteConversation(t *testing.T) {
	p := fifo(t, func(w io.Writer) {
		io.WriteString(w, `[{"title":"huge","mapping":{"a":{"id":"a","message":{"author":{"role":"user"},"content":{"content_type":"text","parts":["`)
		chunk := bytes.Repeat([]byte("A"), 1<<20)
		for i := 0; i < 1024; i++ {
			if _, err := w.Write(chunk); err != nil {
				return // the reader stopped: refused
			}
		}
		io.WriteString(w, `"]}}},"current_node":"a"}]`)
	})
	e, err := Open(p, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.Next()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if !errors.Is(err, ErrTooBig) || !strings.Contains(err.Error(), "conversation 1 is over 64 MiB") {
		t.Fatalf("a 1 GB conversation: %v", err)
	}
	if e.Read() > 80<<20 {
		t.Errorf("read %d bytes before refusing", e.Read())
	}
	t.Logf("refused after reading %d MiB; heap in use %d MiB", e.Read()>>20, ms.HeapInuse>>20)
	if ms.HeapInuse > 400<<20 {
		t.Errorf("heap %d MiB", ms.HeapInuse>>20)
	}
}

// TestExportBound: the export as a whole is bounded too; the conversations
// read before the bound are given, then the refusal.
func TestExportBound(t *testing.T) {
	p := fifo(t, func(w io.Writer) {
		io.WriteString(w, "[")
		for i := 0; i < 100000; i++ {
			if i > 0 {
				io.WriteString(w, ",")
			}
			if _, err := fmt.Fprintf(w, `{"id":"c%d","title":"t%d","create_time":1700000000,"mapping":{"a":{"id":"a","message":{"author":{"role":"user"},"content":{"content_type":"text","parts":["%s"]}}}},"current_node":"a"}`, i, i, strings.Repeat("x", 1000)); err != nil {
				return
			}
		}
		io.WriteString(w, "]")
	})
	e, err := Open(p, Limits{MaxJSONBytes: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	n := 0
	for {
		_, err = e.Next()
		if err != nil {
			break
		}
		n++
	}
	if !errors.Is(err, ErrTooBig) || n < 3000 || n > 4200 {
		t.Fatalf("after %d conversations: %v", n, err)
	}
}

// TestDeepTreeAndCycle: a conversation deeper than the bound, and one
// whose mapping loops, are refused one by one, in words; the stream reads
// on to the next.
func TestDeepTreeAndCycle(t *testing.T) {
	var b strings.Builder
	b.WriteString(`[{"id":"deep","title":"deep","mapping":{`)
	const depth = 1500
	for i := 0; i < depth; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"n%d":{"id":"n%d","parent":"n%d","children":["n%d"],"message":{"author":{"role":"user"},"content":{"content_type":"text","parts":["q"]}}}`, i, i, i-1, i+1)
	}
	fmt.Fprintf(&b, `},"current_node":"n%d"},`, depth-1)
	b.WriteString(`{"id":"loop","title":"loop","mapping":{"a":{"id":"a","parent":"b","children":["b"]},"b":{"id":"b","parent":"a","children":["a"]}},"current_node":"a"},`)
	b.WriteString(`{"id":"ok","title":"fine","mapping":{"a":{"id":"a","message":{"author":{"role":"user"},"content":{"content_type":"text","parts":["hello"]}}}},"current_node":"a"}]`)
	p := filepath.Join(t.TempDir(), "conversations.json")
	os.WriteFile(p, []byte(b.String()), 0o600)
	lim := Limits{MaxNodes: 1000}
	e, err := Open(p, lim)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var why []string
	var fine int
	for {
		r, err := e.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Convert(r, lim); err != nil {
			if !errors.Is(err, ErrBadConversation) {
				t.Fatalf("%s: %v", r.TitleText(), err)
			}
			why = append(why, err.Error())
		} else {
			fine++
		}
	}
	if len(why) != 2 || !strings.Contains(why[0], "over the 1000") || !strings.Contains(why[1], "loops back on itself") || fine != 1 {
		t.Fatalf("refusals %q, %d read", why, fine)
	}
}

// TestNotAnExport: what is not an export says what to give.
func TestNotAnExport(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"a.csv": "a,b\n1,2\n", "empty.json": "", "num.json": "42"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(data), 0o600)
		if _, err := Open(p, Limits{}); !errors.Is(err, ErrNotExport) || !strings.Contains(err.Error(), "conversations.json") {
			t.Errorf("%s: %v", name, err)
		}
	}
	p := writeZip(t, map[string][]byte{"notes.txt": []byte("x")})
	if _, err := Open(p, Limits{}); !errors.Is(err, ErrNotExport) || !strings.Contains(err.Error(), "Data controls") {
		t.Errorf("a zip without conversations.json: %v", err)
	}
}
