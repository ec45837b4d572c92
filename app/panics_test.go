package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bound method that panics returns an error in words (Wails v2 would
// end the window on the panic); the window's GGUF path refuses the red
// team's header without one.
func TestBoundMethodsTurnPanicsIntoErrors(t *testing.T) {
	a := &App{}
	boom := func() (_ int, err error) {
		defer a.guard("Boom", &err)
		panic("runtime error: index out of range [3] with length 0")
	}
	_, err := boom()
	if err == nil || !strings.Contains(err.Error(), "Boom stopped on input it could not read") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("panic became %v", err)
	}
	// The window's carried model path, through a real App.
	dir := t.TempDir()
	h := New(Config{DataDir: dir})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	os.MkdirAll(filepath.Join(dir, UploadsDir), 0o700)
	p := filepath.Join(dir, UploadsDir, "hostile.gguf") // as the browser uploads it
	hdr := []byte("GGUF\x03\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	tensor := []byte("\x01\x00\x00\x00\x00\x00\x00\x00x\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x40\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	os.WriteFile(p, append(append(hdr, tensor...), make([]byte, 256)...), 0o600)
	if _, err := h.App.AddCarriedModel(p, false); err == nil || !strings.Contains(err.Error(), "2^48") {
		t.Fatalf("a hostile GGUF in the window: %v", err)
	}
}
