package core

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/llm"
	"rehome/backend/vision"
)

// A question's images: a model that does not read images (by its
// server's word, else rehome's catalog) is sent none and the user is told;
// one that does gets each readied (bounds, EXIF gone); each path is vetted
// by the face's check; a bomb is refused in words.
func TestQuestionImages(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 20, 10)))
	good := filepath.Join(dir, "chart.png")
	os.WriteFile(good, b.Bytes(), 0o600)
	text := llm.Server{Name: "Ollama", Models: []llm.ModelInfo{{ID: "qwen2.5:7b"}}}
	seer := llm.Server{Name: "llama-server", Models: []llm.ModelInfo{{ID: "gemma-3-4b", Vision: true}}}
	if text.ReadsImages("qwen2.5:7b") || !seer.ReadsImages("gemma-3-4b") {
		t.Fatal("the servers' word")
	}
	if err := (&NoVisionError{Model: "qwen2.5:7b"}).Error(); !strings.Contains(err, "qwen2.5:7b does not read images (so the images were not sent): no model served") {
		t.Fatal(err)
	}
	if err := (&NoVisionError{Model: "tiny", Readers: []string{"gemma3:4b (Ollama, http://127.0.0.1:11434/v1)"}}).Error(); !strings.Contains(err, "ask a model that does: gemma3:4b (Ollama") {
		t.Fatal(err)
	}
	urls, names, err := questionImages([]string{good}, nil)
	if err != nil || len(urls) != 1 || names[0] != "chart.png" || !strings.HasPrefix(urls[0], "data:image/png;base64,") {
		t.Fatalf("a vision model: %v %v %v", urls, names, err)
	}
	refuse := func(p string) (string, error) { return "", errors.New(p + " is not a file you gave rehome") }
	if _, _, err := questionImages([]string{good}, refuse); err == nil || !strings.Contains(err.Error(), "not a file you gave rehome") {
		t.Fatalf("the check: %v", err)
	}
	bomb := filepath.Join(dir, "bomb.png")
	raw := b.Bytes()
	// The same PNG with its IHDR claiming 30,000 × 30,000 (the CRC then
	// fails: the header check comes first either way).
	hdr := append([]byte{}, raw...)
	copy(hdr[16:24], []byte{0, 0, 0x75, 0x30, 0, 0, 0x75, 0x30})
	os.WriteFile(bomb, hdr, 0o600)
	if _, _, err := questionImages([]string{bomb}, nil); err == nil || !strings.Contains(err.Error(), "bomb.png") {
		t.Fatalf("a bomb: %v", err)
	}
	many := make([]string, vision.MaxImages+1)
	if _, _, err := questionImages(many, nil); err == nil || !strings.Contains(err.Error(), "at most 8") {
		t.Fatalf("too many: %v", err)
	}
}
