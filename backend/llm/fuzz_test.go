package llm

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadSSE feeds a model server's stream to the reader the client
// uses; seeded with the recorded wires of real servers (testdata/*/*.sse,
// llama-server). Nothing may panic, and what it keeps is bounded by
// MaxEventBytes per event.
func FuzzReadSSE(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.sse")
	for _, p := range files[:min(len(files), 24)] {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("data: {\"error\":{\"message\":\"x\"}}\n\n"))
	f.Add([]byte("event: error\ndata: {\"message\":\"boom\"}\n\n: ping\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		acc := newAccumulator(nil)
		readSSE(bytes.NewReader(data), acc, func() {})
		acc.reply()
	})
}
