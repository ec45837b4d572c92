package assistant

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadBundle feeds bundles (someone else's .rehome.zip or .tar.gz) to
// the reader: nothing may panic, and a refused bundle leaves nothing.
func FuzzReadBundle(f *testing.F) {
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("assistant.json")
	w.Write([]byte(`{"schema":1,"name":"x","knowledge":[{"name":"a.txt","size":2,"sha256":"` + "00" + `"}]}`))
	zw.Close()
	f.Add(zb.Bytes(), false)
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00"), true)
	f.Fuzz(func(t *testing.T, data []byte, gz bool) {
		name := "a.rehome.zip"
		if gz {
			name = "a.rehome.tar.gz"
		}
		p := filepath.Join(t.TempDir(), name)
		os.WriteFile(p, data, 0o600)
		dest := t.TempDir()
		if _, err := ReadBundle(p, dest); err != nil {
			if entries, _ := os.ReadDir(dest); len(entries) > 0 {
				t.Fatalf("a refused bundle left %d entries", len(entries))
			}
		}
	})
}
