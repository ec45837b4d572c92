package dataset

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzPeek feeds dropped files (CSV, TSV, JSON, XLSX, Parquet: someone
// else's bytes) to the preview; seeded with the real fixtures of
// testdata. Nothing may panic.
func FuzzPeek(f *testing.F) {
	exts := []string{".csv", ".tsv", ".json", ".xlsx", ".parquet", ".txt"}
	for _, p := range []string{"testdata/sales.xlsx", "testdata/sample.parquet"} {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b, uint8(3+len(filepath.Ext(p))%2))
		}
	}
	f.Add([]byte("a,b\n1,2\n\"x\",\"y\"\"z\"\n"), uint8(0))
	f.Add([]byte("[{\"a\":1},{\"a\":2}]"), uint8(2))
	f.Add([]byte("PK\x03\x04"), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		p := filepath.Join(t.TempDir(), "f"+exts[int(kind)%len(exts)])
		os.WriteFile(p, data, 0o600)
		Peek(p, Options{})
	})
}
