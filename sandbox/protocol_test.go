package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fr(typ byte, payload any) []byte {
	var p []byte
	switch v := payload.(type) {
	case []byte:
		p = v
	case string:
		p = []byte(v)
	default:
		p, _ = json.Marshal(v)
	}
	out := []byte{typ, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(out[1:], uint32(len(p)))
	return append(out, p...)
}

func fileFrames(name, kind string, data []byte) []byte {
	out := fr(frameFile, fileFrame{Name: name, Kind: kind, Size: int64(len(data))})
	for len(data) > 0 {
		n := min(len(data), 1000)
		out = append(out, fr(frameData, data[:n])...)
		data = data[n:]
	}
	return out
}

// feed writes stream into a fresh decoder in random-sized pieces, as the
// attach stream delivers it.
func feed(t *testing.T, lim Limits, dir string, stream []byte, seed int64) (*collector, *decoder) {
	t.Helper()
	var sv *saver
	if dir != "" {
		var err error
		if sv, err = newSaver(dir); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sv.close)
	}
	c := newCollector(lim, sv, nil)
	d := &decoder{c: c}
	r := rand.New(rand.NewSource(seed))
	for len(stream) > 0 {
		n := min(len(stream), 1+r.Intn(7000))
		if k, err := d.Write(stream[:n]); k != n || err != nil {
			t.Fatalf("Write = %d, %v", k, err)
		}
		stream = stream[n:]
	}
	return c, d
}

func TestDecoderHappyPath(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 5000)...)
	csv := []byte("a,b\n1,2\n")
	var s []byte
	s = append(s, fr(frameHello, map[string]any{"v": 1, "observed": map[string]any{"uid": 10001, "cgroup": map[string]any{"cgroup_version": 1, "memory_limit": 536870912}}})...)
	s = append(s, fr(frameStdout, "hello ")...)
	s = append(s, fr(frameStderr, "warn\n")...)
	s = append(s, fr(frameStdout, "world\n")...)
	s = append(s, fileFrames("plot-001.png", "plot", png)...)
	s = append(s, fileFrames("sub/out.csv", "file", csv)...)
	s = append(s, fileFrames("empty.txt", "file", nil)...)
	s = append(s, fr(frameSkip, skipFrame{Name: "link", Reason: "symbolic link"})...)
	s = append(s, fr(frameExit, map[string]any{"exit_code": 0, "oom_kills": 0})...)
	for seed := int64(0); seed < 20; seed++ {
		dir := t.TempDir()
		c, d := feed(t, DefaultLimits, dir, s, seed)
		if d.broken != nil {
			t.Fatal(d.broken)
		}
		if string(c.stdout.buf) != "hello world\n" || string(c.stderr.buf) != "warn\n" {
			t.Fatalf("streams %q %q", c.stdout.buf, c.stderr.buf)
		}
		if c.hello == nil || c.hello.Observed.UID != 10001 || *c.hello.Observed.Cgroup.MemoryLimit != 536870912 {
			t.Fatalf("hello %+v", c.hello)
		}
		if c.exit == nil || *c.exit.ExitCode != 0 {
			t.Fatal("exit")
		}
		if len(c.files) != 3 || len(c.skipped) != 1 {
			t.Fatalf("files %+v skipped %+v", c.files, c.skipped)
		}
		want := map[string][]byte{"plots/plot-001.png": png, "sub/out.csv": csv, "empty.txt": nil}
		for _, f := range c.files {
			rel, _ := filepath.Rel(dir, f.Path)
			data, err := os.ReadFile(f.Path)
			if err != nil || !bytes.Equal(data, want[rel]) {
				t.Fatalf("%s: %v", rel, err)
			}
			sum := sha256.Sum256(data)
			if f.SHA256 != hex.EncodeToString(sum[:]) || f.Size != int64(len(data)) {
				t.Fatalf("%s: hash or size", rel)
			}
		}
		if c.files[0].Kind != "plot" {
			t.Fatal("plot kind")
		}
	}
}

func TestDecoderCapsStreams(t *testing.T) {
	lim := DefaultLimits
	lim.StdoutMax = 100
	var s []byte
	for i := 0; i < 1000; i++ {
		s = append(s, fr(frameStdout, strings.Repeat("x", 1000))...)
	}
	c, _ := feed(t, lim, "", s, 1)
	if len(c.stdout.buf) != 100 || !c.stdout.truncated() || c.stdout.total != 1000000 {
		t.Fatalf("kept %d of %d", len(c.stdout.buf), c.stdout.total)
	}
}

func TestDecoderRefusesHostileOutputs(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	// A link planted in the output folder beforehand: never followed.
	if err := os.Symlink(filepath.Join(outside, "pwned"), filepath.Join(dir, "planted.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	lim := DefaultLimits
	lim.OutputFiles = 4
	lim.OutputBytes = 2 * MiB
	var s []byte
	for _, name := range []string{"../escape.txt", "/etc/passwd", "a/../../b", "", ".", "x/./y", "..\\..\\win", "/\x00",
		"planted.txt", "linkdir/inside.txt", strings.Repeat("d/", 20) + "deep"} {
		s = append(s, fileFrames(name, "file", []byte("evil"))...)
	}
	s = append(s, fileFrames("ok1.txt", "file", []byte("1"))...)
	s = append(s, fileFrames("big.bin", "file", make([]byte, 3*MiB))...) // over the byte cap
	s = append(s, fileFrames("ok2.txt", "file", []byte("2"))...)
	s = append(s, fileFrames("fake-plot.png", "plot", []byte("<svg onload=alert(1)>"))...)
	s = append(s, fileFrames("ok3.txt", "file", []byte("3"))...) // over the count cap
	s = append(s, fr(frameExit, map[string]any{"exit_code": 0})...)
	c, d := feed(t, lim, dir, s, 3)
	if d.broken != nil {
		t.Fatal(d.broken)
	}
	var names []string
	for _, f := range c.files {
		names = append(names, f.Name+":"+f.Kind)
	}
	if strings.Join(names, ",") != ".._.._win:file,ok1.txt:file,ok2.txt:file,fake-plot.png:file" {
		t.Fatalf("kept %v; skipped %+v", names, c.skipped)
	}
	if len(c.skipped) != 12 {
		t.Fatalf("skipped %d: %+v", len(c.skipped), c.skipped)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Fatalf("something was written outside the output folder: %v", entries)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "planted.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("planted link was replaced or followed")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.txt")); err == nil {
		t.Fatal("escaped")
	}
}

func TestDecoderBrokenStreams(t *testing.T) {
	cases := map[string][]byte{
		"unknown type":        fr('Z', "x"),
		"huge control":        {frameFile, 0x7f, 0xff, 0xff, 0xff},
		"data outside a file": fr(frameData, "x"),
		"bad json":            fr(frameExit, "{"),
		"overlong file":       append(fr(frameFile, fileFrame{Name: "a", Kind: "file", Size: 1}), fr(frameData, "xx")...),
		"nested file":         append(fr(frameFile, fileFrame{Name: "a", Kind: "file", Size: 5}), fr(frameFile, fileFrame{Name: "b", Kind: "file", Size: 1})...),
		"wrong version":       fr(frameHello, map[string]int{"v": 99}),
	}
	for name, s := range cases {
		dir := t.TempDir()
		// After the break, a flood must be dropped without growing memory.
		flood := bytes.Repeat([]byte{'O', 0, 0, 0, 1, 'x'}, 100000)
		c, d := feed(t, DefaultLimits, dir, append(s, flood...), 5)
		if d.broken == nil {
			t.Errorf("%s: not detected", name)
			continue
		}
		if len(c.files) != 0 || d.dropped == 0 {
			t.Errorf("%s: files %v dropped %d", name, c.files, d.dropped)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: partial files left: %v", name, entries)
		}
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{
		"a.txt": "a.txt", "sub/b.png": "sub/b.png", "résumé.csv": "résumé.csv", "with space.txt": "with space.txt",
		"a\nb": "a_b", "bad\xff": "bad_", "c:\\x": "c:_x", "tab\t.csv": "tab_.csv", "a\x00b": "a_b",
	} {
		got, renamed, err := safeName(in)
		if err != nil || got != want || renamed != (in != want) {
			t.Errorf("safeName(%q) = %q, %t, %v; want %q", in, got, renamed, err, want)
		}
	}
	for _, bad := range []string{"", "/abs", "../x", "a/..", "a//b", "./a", strings.Repeat("a", 256), strings.Repeat("a/", 10) + "b"} {
		if _, _, err := safeName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzDecoder(f *testing.F) {
	f.Add(fileFrames("a.txt", "file", []byte("abc")))
	f.Add(fr(frameExit, map[string]int{"exit_code": 1}))
	f.Add([]byte{frameData, 0, 0, 0, 3, 1, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		sv, err := newSaver(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer sv.close()
		c := newCollector(Limits{StdoutMax: 10, StderrMax: 10, OutputFiles: 5, OutputBytes: 1000}.WithDefaults(), sv, nil)
		d := &decoder{c: c}
		d.Write(data)
		if len(c.stdout.buf) > 10 || c.nfiles > 5 || c.nbytes > 1000 {
			t.Fatal("cap broken")
		}
		filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.Type()&os.ModeSymlink != 0 {
				t.Fatalf("link created: %s", p)
			}
			return nil
		})
	})
}
