package assistant

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"image"
	"image/png"

	"rehome/backend/ids"
	"rehome/backend/vision"
)

// richAssistant is a stored assistant with every field set and knowledge
// files with awkward names: spaces and accents, an empty file, and the
// same bytes under two names (kept as two references to one copy).
func richAssistant(t *testing.T, svc *Service, dir string) Assistant {
	t.Helper()
	var files []string
	for name, content := range map[string]string{
		"Q3 résumé (final).csv": "region,revenue\nnorth,10\nsouth,20\n",
		"empty.txt":             "",
		"notes.md":              "# Notes\nsame bytes\n",
		"notes copy.md":         "# Notes\nsame bytes\n",
	} {
		files = append(files, writeFile(t, dir, name, content))
	}
	var kn []KnowledgeFile
	for _, p := range files {
		k, err := svc.Library().Add(p)
		if err != nil {
			t.Fatal(err)
		}
		kn = append(kn, k)
	}
	a, err := svc.Create(Assistant{
		Name: "Quarterly Numbers", Description: "d", Instructions: "Be exact.\n\"Quote\" \"\"\"x\"\"\"",
		Starters: []string{"a", "b"}, Knowledge: kn,
		Capabilities: []Capability{CodeInterpreter, Voice},
		Actions:      []Action{{Schema: "openapi: 3.0.0\nservers:\n  - url: https://x.example.com\n", Auth: "oauth", PrivacyURL: "https://x.example.com/privacy"}},
		Notes:        "notes",
		// The editor's fields travel in a bundle too.
		WelcomeMessage: "Hello! Drop your quarterly CSV.", Model: "qwen2.5:7b", Picture: testPicture(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// testPicture is a picture as the editor keeps one (vision.Picture's).
func testPicture(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 32, 32))
	for i := range img.Pix {
		img.Pix[i] = byte(i)
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	url, err := vision.Picture("me.png", b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return url
}

func exportBundle(t *testing.T, a Assistant, kind BundleKind, opts BundleOptions) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "a.rehome."+string(kind))
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteBundle(f, kind, a, opts); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func fileSHA(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestBundleRoundTripsLosslessly(t *testing.T) {
	for _, kind := range []BundleKind{TarGz, Zip} {
		t.Run(string(kind), func(t *testing.T) {
			src := t.TempDir()
			svc := newService(t)
			orig := richAssistant(t, svc, src)
			bundle := exportBundle(t, orig, kind, BundleOptions{Library: svc.Library()})
			if !IsBundle(bundle) {
				t.Fatal("IsBundle false for a bundle")
			}
			// Another machine: the original files are gone.
			if err := os.RemoveAll(src); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(svc.Library().Dir()); err != nil {
				t.Fatal(err)
			}
			other := newService(t)
			dest := other.Library().Dir()
			imp, err := other.ImportBundle(bundle)
			if err != nil {
				t.Fatal(err)
			}
			got := imp.Assistant
			for i, k := range got.Knowledge {
				if filepath.Dir(filepath.Dir(k.Path)) != dest || fileSHA(t, k.Path) != orig.Knowledge[i].SHA256 {
					t.Errorf("knowledge %d at %s does not hold the original bytes", i, k.Path)
				}
			}
			// Everything else is exactly the original, id and times included.
			want := orig
			want.Knowledge = append([]KnowledgeFile(nil), orig.Knowledge...)
			for i := range want.Knowledge {
				want.Knowledge[i].Path = got.Knowledge[i].Path
			}
			if !reflect.DeepEqual(normalizeTimes(got), normalizeTimes(want)) {
				t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, want)
			}
			stored, err := other.Get(orig.ID)
			if err != nil || !reflect.DeepEqual(normalizeTimes(stored), normalizeTimes(got)) {
				t.Fatalf("stored %+v, %v", stored, err)
			}
			// One folder per content, named by its hash, the file in it
			// under its name.
			entries, _ := os.ReadDir(dest)
			if len(entries) != 3 {
				t.Errorf("%d folders extracted, want 3", len(entries))
			}
			for _, e := range entries {
				if !ids.IsSHA256(e.Name()) || !e.IsDir() {
					t.Errorf("extracted %s: not a folder named by its sha256", e.Name())
				}
			}
			// Importing again: a new id, the extracted files reused.
			again, err := other.ImportBundle(bundle)
			if err != nil {
				t.Fatal(err)
			}
			if again.Assistant.ID == orig.ID || !strings.Contains(strings.Join(again.Warnings, "\n"), "already stored; the import got the new id") {
				t.Fatalf("second import %+v", again)
			}
			if entries, _ := os.ReadDir(dest); len(entries) != 3 {
				t.Errorf("second import duplicated files: %d", len(entries))
			}
		})
	}
}

// Times go through JSON in the store; compare them as instants.
func normalizeTimes(a Assistant) Assistant {
	a.Created, a.Updated = a.Created.UTC().Round(0), a.Updated.UTC().Round(0)
	return a
}

func TestBundleOnTheSameMachineReusesTheLibrary(t *testing.T) {
	svc := newService(t)
	orig := richAssistant(t, svc, t.TempDir())
	bundle := exportBundle(t, orig, TarGz, BundleOptions{Library: svc.Library()})
	u, err := ReadBundle(bundle, svc.Library().Dir())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(u.Assistant.Knowledge, orig.Knowledge) || len(u.Extracted) != 0 {
		t.Fatalf("paths changed or files copied again: %+v extracted %v", u.Assistant.Knowledge, u.Extracted)
	}
}

func TestBundleExportRefusesChangedOrMissingFiles(t *testing.T) {
	src := t.TempDir()
	svc := newService(t)
	a := richAssistant(t, svc, src)
	lib := BundleOptions{Library: svc.Library()}
	var buf bytes.Buffer
	// Same size, different bytes.
	csv := a.Knowledge[0].Path
	if a.Knowledge[0].Name != "Q3 résumé (final).csv" {
		for _, k := range a.Knowledge {
			if strings.HasSuffix(k.Name, ".csv") {
				csv = k.Path
			}
		}
	}
	content, _ := os.ReadFile(csv)
	content[0] ^= 1
	os.WriteFile(csv, content, 0o644)
	if _, err := WriteBundle(&buf, TarGz, a, lib); err == nil || !strings.Contains(err.Error(), "has changed since it was attached (sha256 now") {
		t.Fatalf("changed bytes: %v", err)
	}
	os.WriteFile(csv, append(content, 'x'), 0o644)
	if _, err := WriteBundle(&buf, Zip, a, lib); err == nil || !strings.Contains(err.Error(), "bytes, was") {
		t.Fatalf("changed size: %v", err)
	}
	os.Remove(csv)
	var mk *MissingKnowledgeError
	if _, err := WriteBundle(&buf, TarGz, a, lib); !errors.As(err, &mk) || mk.Name == "" || strings.Contains(err.Error(), "--") {
		t.Fatalf("missing: %v", err)
	}
	bundle := filepath.Join(t.TempDir(), "b.tar.gz")
	f, _ := os.Create(bundle)
	warnings, err := WriteBundle(f, TarGz, a, BundleOptions{AllowMissing: true, Library: svc.Library()})
	f.Close()
	if err != nil || len(warnings) != 1 {
		t.Fatalf("allow missing: %v %v", warnings, err)
	}
	u, err := ReadBundle(bundle, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Assistant.Knowledge) != len(a.Knowledge) || !strings.Contains(u.Warnings[0], "the reference is kept") {
		t.Fatalf("missing file's reference lost: %+v %v", u.Assistant.Knowledge, u.Warnings)
	}
}

// tarEntry is one entry of a hand-made archive.
type tarEntry struct {
	name, body, link string
	typ              byte
}

func manifestFor(t *testing.T, files map[string]string) (string, map[string]string) {
	t.Helper()
	a := Assistant{Schema: 1, ID: "x1", Name: "Evil", Knowledge: []KnowledgeFile{}, Actions: []Action{}, Capabilities: []Capability{}, Starters: []string{}}
	m := BundleManifest{Format: BundleFormat, Version: 1, Assistant: a, Files: []BundleFile{}}
	entries := map[string]string{}
	i := 0
	for name, body := range files {
		sum := sha256.Sum256([]byte(body))
		k := KnowledgeFile{Name: name, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:]), Path: "/nonexistent/" + name}
		m.Assistant.Knowledge = append(m.Assistant.Knowledge, k)
		m.Files = append(m.Files, BundleFile{Knowledge: i, Entry: entryName(k), SHA256: k.SHA256, Size: k.Size})
		entries[name] = entryName(k)
		i++
	}
	b, _ := json.Marshal(m)
	return string(b), entries
}

func writeTarGz(t *testing.T, entries []tarEntry) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o644, Size: int64(len(e.body)), Linkname: e.link, ModTime: time.Unix(0, 0)}
		if typ != tar.TypeReg {
			hdr.Size = 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	gz.Close()
	p := filepath.Join(t.TempDir(), "evil.tar.gz")
	os.WriteFile(p, buf.Bytes(), 0o644)
	return p
}

func TestBundleRefusesHostileArchives(t *testing.T) {
	manifest, names := manifestFor(t, map[string]string{"a.txt": "hello\n"})
	good := names["a.txt"]
	cases := []struct {
		name    string
		entries []tarEntry
		want    string
	}{
		{"dot-dot", []tarEntry{{name: "assistant.json", body: manifest}, {name: "knowledge/../../evil", body: "x"}}, "climbs out of the bundle"},
		{"leading dot-dot", []tarEntry{{name: "assistant.json", body: manifest}, {name: "../evil", body: "x"}}, "climbs out of the bundle"},
		{"absolute", []tarEntry{{name: "assistant.json", body: manifest}, {name: "/etc/evil", body: "x"}}, "absolute"},
		{"symlink", []tarEntry{{name: "assistant.json", body: manifest}, {name: good, typ: tar.TypeSymlink, link: "/etc/passwd"}}, "link or special file"},
		{"hard link", []tarEntry{{name: "assistant.json", body: manifest}, {name: good, typ: tar.TypeLink, link: "assistant.json"}}, "link or special file"},
		{"device", []tarEntry{{name: "assistant.json", body: manifest}, {name: good, typ: tar.TypeChar}}, "link or special file"},
		{"not in the manifest", []tarEntry{{name: "assistant.json", body: manifest}, {name: "knowledge/other.txt", body: "x"}}, "not in the manifest"},
		{"manifest not first", []tarEntry{{name: good, body: "hello\n"}, {name: "assistant.json", body: manifest}}, "must come first"},
		{"tampered bytes", []tarEntry{{name: "assistant.json", body: manifest}, {name: good, body: "jello\n"}}, "does not match its sha256"},
		{"wrong size", []tarEntry{{name: "assistant.json", body: manifest}, {name: good, body: "hello, world\n"}}, "the manifest says 6"},
		{"duplicate entry", []tarEntry{{name: "assistant.json", body: manifest}, {name: good, body: "hello\n"}, {name: good, body: "hello\n"}}, "appears twice"},
		{"file missing", []tarEntry{{name: "assistant.json", body: manifest}}, "listed in the manifest but not in the archive"},
		{"not a manifest", []tarEntry{{name: "assistant.json", body: `{"format":"something-else"}`}}, "not a rehome bundle manifest"},
		{"backslash", []tarEntry{{name: "assistant.json", body: manifest}, {name: `knowledge\..\..\evil`, body: "x"}}, "absolute or Windows path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), "dest")
			_, err := ReadBundle(writeTarGz(t, c.entries), dest)
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrBadBundle) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			// Nothing is left behind by a refused bundle.
			entries, _ := os.ReadDir(dest)
			if len(entries) != 0 {
				t.Fatalf("refused bundle left %d file(s)", len(entries))
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(dest), "evil")); err == nil {
				t.Fatal("a file escaped the destination")
			}
		})
	}
}

func TestBundleRefusesZipSymlinkAndTruncation(t *testing.T) {
	manifest, names := manifestFor(t, map[string]string{"a.txt": "hello\n"})
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("assistant.json")
	w.Write([]byte(manifest))
	hdr := &zip.FileHeader{Name: names["a.txt"]}
	hdr.SetMode(fs.ModeSymlink | 0o777)
	w, _ = zw.CreateHeader(hdr)
	w.Write([]byte("/etc/passwd"))
	zw.Close()
	p := filepath.Join(t.TempDir(), "evil.zip")
	os.WriteFile(p, buf.Bytes(), 0o644)
	if _, err := ReadBundle(p, t.TempDir()); err == nil || !strings.Contains(err.Error(), "link or special file") {
		t.Fatalf("zip symlink: %v", err)
	}

	good := writeTarGz(t, []tarEntry{{name: "assistant.json", body: manifest}, {name: names["a.txt"], body: "hello\n"}})
	if _, err := ReadBundle(good, t.TempDir()); err != nil {
		t.Fatalf("the well-formed hand-made bundle is refused: %v", err)
	}
	data, _ := os.ReadFile(good)
	cut := filepath.Join(t.TempDir(), "cut.tar.gz")
	os.WriteFile(cut, data[:len(data)/2], 0o644)
	if _, err := ReadBundle(cut, t.TempDir()); err == nil || !errors.Is(err, ErrBadBundle) {
		t.Fatalf("truncated: %v", err)
	}
	notBundle := writeFile(t, t.TempDir(), "x.json", "{}")
	if _, err := ReadBundle(notBundle, t.TempDir()); err == nil || !strings.Contains(err.Error(), "neither a .tar.gz nor a .zip") {
		t.Fatalf("not a bundle: %v", err)
	}
}

func TestEntryNamesAreSafe(t *testing.T) {
	k := KnowledgeFile{Name: "../../etc/pass:wd\x00.txt", SHA256: helloSHA}
	got := entryName(k)
	if err := checkEntryName(got); err != nil || strings.Count(got, "/") != 1 {
		t.Fatalf("entry %q: %v", got, err)
	}
}
