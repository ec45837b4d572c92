package assistant

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"rehome/backend/store"
)

// secretFile is a host file no user gave rehome: what an attacker's
// description names as a knowledge file.
func secretFile(t *testing.T) string {
	t.Helper()
	return writeFile(t, t.TempDir(), "shadow", "root:$6$secret-hash:19000:0:99999:7:::\n")
}

// mountsSecret says whether any path rehome would mount for a is secret.
func mountsSecret(svc *Service, a Assistant, secret string) bool {
	paths, _ := svc.Library().Mounts(a)
	return slices.Contains(paths, secret)
}

// Attack: a JSON description names a host file as knowledge, with no hash
// (on 089ebe7 it was hashed and referenced in place, then mounted by Ask)
// or with its true hash.
func TestImportNeverMakesAHostPathMountable(t *testing.T) {
	secret := secretFile(t)
	svc := newService(t)
	for _, desc := range []string{
		`{"name":"Evil","knowledge":[{"name":"notes.txt","path":` + jsonString(secret) + `}]}`,
		`{"name":"Evil","knowledge":[{"name":"notes.txt","path":` + jsonString(secret) + `,"sha256":"` + fileSHA(t, secret) + `"}]}`,
		`{"object":"list","data":[{"name":"Evil","knowledge":[{"name":"notes.txt","path":` + jsonString(secret) + `}]}]}`,
	} {
		rep, err := svc.ImportJSON([]byte(desc), ImportOptions{})
		if err != nil || rep.Imported != 1 {
			t.Fatalf("import: %v %+v", err, rep)
		}
		a := *rep.Items[0].Assistant
		if a.Knowledge[0].Path != "" || mountsSecret(svc, a, secret) {
			t.Fatalf("the description's path was kept: %+v", a.Knowledge)
		}
		stored, _ := svc.Get(a.ID)
		if stored.Knowledge[0].Path != "" {
			t.Fatalf("stored with the host path: %+v", stored.Knowledge)
		}
	}
}

// Attack: a bundle's assistant.json names a host file as a knowledge
// path — marked missing, not listed in files, or listed with its true hash
// (on 089ebe7 the first two kept the path, the third kept it "because the
// original is still here").
func TestBundleNeverMakesAHostPathMountable(t *testing.T) {
	secret := secretFile(t)
	sum := fileSHA(t, secret)
	body, _ := os.ReadFile(secret)
	k := KnowledgeFile{Name: "notes.txt", Size: int64(len(body)), SHA256: sum, Path: secret}
	manifest := func(files []BundleFile) string {
		m := BundleManifest{Format: BundleFormat, Version: BundleVersion, Assistant: Assistant{Name: "Evil", Knowledge: []KnowledgeFile{k}}, Files: files}
		b, _ := json.Marshal(m)
		return string(b)
	}
	cases := map[string][]tarEntry{
		"missing":  {{name: "assistant.json", body: manifest([]BundleFile{{Knowledge: 0, SHA256: sum, Size: k.Size, Missing: true}})}},
		"unlisted": {{name: "assistant.json", body: manifest([]BundleFile{})}},
		"carried": {{name: "assistant.json", body: manifest([]BundleFile{{Knowledge: 0, Entry: entryName(k), SHA256: sum, Size: k.Size}})},
			{name: entryName(k), body: string(body)}},
	}
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			svc := newService(t)
			imp, err := svc.ImportBundle(writeTarGz(t, entries))
			if err != nil {
				t.Fatal(err)
			}
			got := imp.Assistant.Knowledge[0].Path
			if got == secret || mountsSecret(svc, imp.Assistant, secret) {
				t.Fatalf("the manifest's host path was kept: %s", got)
			}
			if name == "carried" && got != svc.Library().PathFor(sum, "notes.txt") {
				t.Fatalf("the carried file is at %s, not in the library", got)
			}
		})
	}
}

// Attack: the bridge's CreateAssistant/UpdateAssistant hand the service a
// record naming a host file.
func TestServiceRefusesKnowledgeItDidNotCopy(t *testing.T) {
	secret := secretFile(t)
	svc := newService(t)
	evil := KnowledgeFile{Name: "n", Size: 10, SHA256: fileSHA(t, secret), Path: secret}
	if _, err := svc.Create(Assistant{Name: "Evil", Knowledge: []KnowledgeFile{evil}}); !errors.Is(err, ErrNotOwnCopy) || !strings.Contains(err.Error(), "attach the file itself") {
		t.Fatalf("create: %v", err)
	}
	a, err := svc.Create(Assistant{Name: "Good"})
	if err != nil {
		t.Fatal(err)
	}
	a.Knowledge = []KnowledgeFile{evil}
	if _, err := svc.Update(a); !errors.Is(err, ErrNotOwnCopy) {
		t.Fatalf("update: %v", err)
	}
	// A path in the library folder but not named by its hash, or a link
	// placed there, is no own copy either.
	lib := svc.Library()
	os.MkdirAll(lib.Dir(), 0o700)
	link := lib.PathFor(evil.SHA256, "n")
	os.MkdirAll(filepath.Dir(link), 0o700)
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	dirLink := filepath.Join(lib.Dir(), strings.Repeat("a", 64))
	if err := os.Symlink(filepath.Dir(secret), dirLink); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, filepath.Join(lib.Dir(), "other"), filepath.Join(dirLink, "shadow"), filepath.Join(lib.Dir(), evil.SHA256)} {
		sum := evil.SHA256
		if strings.HasPrefix(p, dirLink) {
			sum = strings.Repeat("a", 64)
		}
		a.Knowledge = []KnowledgeFile{{Name: "n", SHA256: sum, Path: p}}
		if _, err := svc.Update(a); !errors.Is(err, ErrNotOwnCopy) {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if _, _, err := svc.Restore(Assistant{Name: "Evil", Knowledge: []KnowledgeFile{evil}}); !errors.Is(err, ErrNotOwnCopy) {
		t.Fatalf("restore: %v", err)
	}
}

// A record stored before the library (a host path, maybe chosen by an
// import) stays editable, is never mounted, and never goes into a bundle.
func TestOldRecordsWithHostPathsAreNotMounted(t *testing.T) {
	secret := secretFile(t)
	st, err := store.Open(filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	body, _ := os.ReadFile(secret)
	old := Assistant{Schema: 1, ID: "01OLD", Name: "Old", Knowledge: []KnowledgeFile{{Name: "notes.txt", Size: int64(len(body)), SHA256: fileSHA(t, secret), Path: secret}},
		Starters: []string{}, Capabilities: []Capability{}, Actions: []Action{}, RemoteFiles: []RemoteFile{}}
	if err := st.Put(store.Assistants, old.ID, old); err != nil {
		t.Fatal(err)
	}
	svc := NewService(st, filepath.Join(t.TempDir(), KnowledgeDir))
	a, err := svc.Edit(old.ID, func(a *Assistant) error { a.Model = "qwen2.5:7b"; return nil })
	if err != nil {
		t.Fatalf("an old record cannot be edited: %v", err)
	}
	paths, notes := svc.Library().Mounts(a)
	if len(paths) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "is not rehome's own copy") || !strings.Contains(notes[0], "attach the file to Old again") {
		t.Fatalf("mounts %v, notes %v", paths, notes)
	}
	var buf bytes.Buffer
	var mk *MissingKnowledgeError
	if _, err := WriteBundle(&buf, TarGz, a, BundleOptions{Library: svc.Library()}); !errors.As(err, &mk) || !mk.NotOwn {
		t.Fatalf("bundle of an old record: %v", err)
	}
	buf.Reset()
	if _, err := WriteBundle(&buf, TarGz, a, BundleOptions{Library: svc.Library(), AllowMissing: true}); err != nil || bytes.Contains(gunzip(t, buf.Bytes()), []byte("secret-hash")) {
		t.Fatalf("the secret went into the bundle: %v", err)
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := out.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// Exports name files, never where they are on the exporting machine.
func TestExportsCarryNoHostPaths(t *testing.T) {
	svc := newService(t)
	src := t.TempDir()
	a := richAssistant(t, svc, src)
	home, _ := os.UserHomeDir()
	leaks := func(what string, b []byte) {
		t.Helper()
		for _, p := range []string{src, svc.Library().Dir(), os.TempDir()} {
			if bytes.Contains(b, []byte(p)) {
				t.Errorf("%s names %s", what, p)
			}
		}
		if home != "" && home != "/" && bytes.Contains(b, []byte(home+"/")) {
			t.Errorf("%s names the home folder %s", what, home)
		}
	}
	var buf bytes.Buffer
	if _, err := WriteBundle(&buf, TarGz, a, BundleOptions{Library: svc.Library()}); err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(gunzip(t, buf.Bytes())))
	if _, err := tr.Next(); err != nil {
		t.Fatal(err)
	}
	var manifest bytes.Buffer
	manifest.ReadFrom(tr)
	leaks("the bundle's assistant.json", manifest.Bytes())
	mf, _, err := Modelfile(a, ExportOptions{Model: "qwen2.5:7b"})
	if err != nil {
		t.Fatal(err)
	}
	leaks("the Modelfile", []byte(mf))
	ow, _, err := OpenWebUI(a, ExportOptions{Model: "qwen2.5:7b"})
	if err != nil {
		t.Fatal(err)
	}
	leaks("the Open WebUI JSON", ow)
}

// tarBomb writes a bundle whose manifest declares one knowledge file of
// size declared; the entry holds body zero bytes (all of it when
// body == declared; else the archive is cut after the header).
func tarBomb(t *testing.T, files int, declared, body int64) string {
	t.Helper()
	var a Assistant
	a.Name = "Bomb"
	m := BundleManifest{Format: BundleFormat, Version: BundleVersion, Files: []BundleFile{}}
	for i := 0; i < files; i++ {
		k := KnowledgeFile{Name: "zeros" + string(rune('a'+i%26)) + ".bin", Size: declared, SHA256: strings.Repeat("0", 63) + string("0123456789abcdef"[i%16])}
		if i >= 16 {
			k.SHA256 = strings.Repeat("1", 62) + string("0123456789abcdef"[i/16%16]) + string("0123456789abcdef"[i%16])
		}
		if i == 0 && body == declared {
			h := sha256.New()
			io.CopyN(h, zeroReader{}, declared)
			k.SHA256 = hex.EncodeToString(h.Sum(nil))
		}
		a.Knowledge = append(a.Knowledge, k)
		m.Files = append(m.Files, BundleFile{Knowledge: i, Entry: entryName(k), SHA256: k.SHA256, Size: declared})
	}
	m.Assistant = a
	mb, _ := json.Marshal(m)
	p := filepath.Join(t.TempDir(), "bomb.tar.gz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: bundleManifest, Mode: 0o644, Size: int64(len(mb)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg})
	tw.Write(mb)
	tw.WriteHeader(&tar.Header{Name: m.Files[0].Entry, Mode: 0o644, Size: declared, ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg})
	zero := make([]byte, 1<<20)
	for left := body; left > 0; left -= int64(len(zero)) {
		tw.Write(zero[:min(left, int64(len(zero)))])
	}
	if body == declared {
		tw.Close()
	}
	gz.Close()
	return p
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// Attack: small archives that declare, or inflate to, huge knowledge
// files (on 089ebe7 a 2 MB .tar.gz wrote a 2 GiB file).
func TestBundleSizesAreBounded(t *testing.T) {
	cases := []struct {
		name           string
		files          int
		declared, body int64
		want           string
		maxWritten     int64
	}{
		{"one file over 512 MiB", 1, MaxKnowledgeBytes + 1, 1 << 20, "more than the 512 MiB a knowledge file may hold", 0},
		{"over 10 GiB together", 21, MaxKnowledgeBytes, 1 << 20, "more than the 10 GiB a bundle may carry", 0},
		{"too many files", MaxBundleFiles + 1, 1, 1, "more than the 1000 a bundle may carry", 0},
		// 96 MiB of zeros is ~100 KiB of gzip: refused once 64 MiB are out.
		{"a decompression bomb", 1, 96 << 20, 96 << 20, "refused as a decompression bomb", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bomb := tarBomb(t, c.files, c.declared, c.body)
			st, _ := os.Stat(bomb)
			svc := newService(t)
			_, err := svc.ImportBundle(bomb)
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrBadBundle) {
				t.Fatalf("%d-byte bundle: err = %v, want %q", st.Size(), err, c.want)
			}
			var left int64
			filepath.Walk(svc.Library().Dir(), func(_ string, fi os.FileInfo, err error) error {
				if err == nil && !fi.IsDir() {
					left += fi.Size()
				}
				return nil
			})
			if left > c.maxWritten {
				t.Fatalf("a refused bundle left %d bytes in the library", left)
			}
		})
	}
}
