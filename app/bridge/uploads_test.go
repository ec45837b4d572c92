package bridge

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/app"
)

// newTestApp is an App on a fresh data folder, not yet opened.
func newTestApp(t *testing.T) *app.Host {
	t.Helper()
	return app.New(app.Config{DataDir: t.TempDir()})
}

func upload(t *testing.T, h http.Handler, name string, body []byte) (int, UploadReply) {
	t.Helper()
	req := httptest.NewRequest("POST", "/api/upload", bytes.NewReader(body))
	if name != "" {
		req.Header.Set("X-File-Name", url.PathEscape(name))
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var r UploadReply
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
		t.Fatalf("reply %q: %v", rec.Body.String(), err)
	}
	return rec.Code, r
}

func TestUpload(t *testing.T) {
	a := newTestApp(t)
	h := newUploadHandler(a.App, 1024)
	code, r := upload(t, h, "../../Sales Q1 (final).csv", []byte("a,b\n1,2\n"))
	if code != 200 || r.Name != "Sales Q1 (final).csv" || r.Size != 8 {
		t.Fatalf("%d %+v", code, r)
	}
	if !strings.HasPrefix(r.Path, filepath.Join(app.DataDir(a.App), app.UploadsDir)+"/") {
		t.Fatalf("stored at %s", r.Path)
	}
	if b, _ := os.ReadFile(r.Path); string(b) != "a,b\n1,2\n" {
		t.Fatalf("stored %q", b)
	}
	// The sandbox's unprivileged user must be able to read it.
	if st, _ := os.Stat(r.Path); st.Mode().Perm() != 0o644 {
		t.Fatalf("stored with mode %v", st.Mode().Perm())
	}
	if _, err := a.PreviewFile(r.Path); err != nil {
		t.Fatal(err)
	}
	// Too large: refused, nothing left behind.
	code, r = upload(t, h, "big.csv", bytes.Repeat([]byte("x"), 2000))
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(r.Error, "rehome window") {
		t.Fatalf("too large: %d %+v", code, r)
	}
	code, r = upload(t, h, "", []byte("x"))
	if code != 400 || r.Error == "" {
		t.Fatalf("no name: %d %+v", code, r)
	}
	// A body larger than announced (chunked, unknown length) is cut at the cap.
	req := httptest.NewRequest("POST", "/api/upload", strings.NewReader(strings.Repeat("y", 3000)))
	req.ContentLength = -1
	req.Header.Set("X-File-Name", "stream.csv")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), "larger than") {
		t.Fatalf("streamed too large: %d %s", rec.Code, rec.Body)
	}
	entries, _ := os.ReadDir(filepath.Join(app.DataDir(a.App), app.UploadsDir))
	if len(entries) != 1 {
		t.Fatalf("failed uploads left %d entries", len(entries))
	}
	// The same file again is stored once; another file elsewhere.
	_, first := upload(t, h, "again.csv", []byte("a,b\n1,2\n"))
	_, second := upload(t, h, "again.csv", []byte("a,b\n1,2\n"))
	_, other := upload(t, h, "again.csv", []byte("a,b\n3,4\n"))
	if first.Path == "" || first.Path != second.Path || other.Path == first.Path {
		t.Fatalf("dedup: %q %q %q", first.Path, second.Path, other.Path)
	}
}

func TestFileHandler(t *testing.T) {
	a := newTestApp(t)
	h := NewFileHandler(a.App)
	dir := filepath.Join(app.DataDir(a.App), app.RunsDir, "r1")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "plot-001.png"), []byte("\x89PNG\r\n\x1a\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "evil.html"), []byte("<script>alert(1)</script>"), 0o600)
	get := func(q string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/file?"+q, nil))
		return rec
	}
	rec := get("path=" + url.QueryEscape(filepath.Join(dir, "plot-001.png")))
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "image/png" || rec.Header().Get("Content-Disposition") != "" {
		t.Fatalf("png: %d %v", rec.Code, rec.Header())
	}
	if !strings.Contains(rec.Header().Get("Content-Security-Policy"), "sandbox") {
		t.Fatal("no sandbox CSP")
	}
	rec = get("path=" + url.QueryEscape(filepath.Join(dir, "evil.html")))
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/octet-stream" || !strings.HasPrefix(rec.Header().Get("Content-Disposition"), "attachment") {
		t.Fatalf("html must download: %d %v", rec.Code, rec.Header())
	}
	rec = get("download=1&path=" + url.QueryEscape(filepath.Join(dir, "plot-001.png")))
	if !strings.Contains(rec.Header().Get("Content-Disposition"), `filename=plot-001.png`) {
		t.Fatalf("download: %v", rec.Header())
	}
	os.WriteFile(filepath.Join(app.DataDir(a.App), "rehome.db"), []byte("db"), 0o600)
	if rec := get("path=" + url.QueryEscape(filepath.Join(app.DataDir(a.App), "rehome.db"))); rec.Code != 404 {
		t.Fatalf("database served: %d", rec.Code)
	}
}
