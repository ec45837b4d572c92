package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/tinymodel"
)

// rehome ask --image with a model that reads images: llama.cpp's real
// llama-server serving the tiny model with the tiny projector
// (tinymodel.WriteProjector, llama.cpp's clip GGUF format, loaded with
// --mmproj), which says in /props that it reads images. The image goes
// on the wire as an OpenAI image_url part after the question's text, a
// data: URL of a PNG rehome wrote again (its own chunks only: the
// comment the file carried is gone), the server takes it and the model
// answers.
func TestAskImageRealModelCLI(t *testing.T) {
	needPodman(t)
	dir := t.TempDir()
	proj := filepath.Join(dir, "mmproj.gguf")
	if err := tinymodel.WriteProjector(proj); err != nil {
		t.Fatal(err)
	}
	script := tinymodel.VisionScript()
	model := llamatest.Start(t, script, "--mmproj", proj)
	tap := newPromptTap(t, model.Root)

	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for x := 0; x < 64; x++ {
		img.Set(x, 40-x/2, color.RGBA{200, 30, 30, 255})
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	raw := buf.Bytes()
	// A tEXt chunk with a secret, after the header: a PNG's metadata.
	withText := append(append(append([]byte{}, raw[:33]...), pngChunk("tEXt", []byte("Comment\x00secret-location-51.5N"))...), raw[33:]...)
	chart := filepath.Join(dir, "chart.png")
	os.WriteFile(chart, withText, 0o600)

	home := t.TempDir()
	r := rehomeCLI(t, home, "ask", "--server", tap.URL+"/v1", "--model", llamatest.Alias, "--image", chart, "--json", "What does the chart show?")
	var out struct{ Answer string }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.Answer != strings.Join(script.Answer, "") {
		t.Fatalf("ask --image: %+v", r)
	}
	bodies := tap.take()
	if len(bodies) != 1 {
		t.Fatalf("%d model requests", len(bodies))
	}
	var req struct {
		Messages []struct {
			Role    string
			Content json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(bodies[0]), &req); err != nil {
		t.Fatal(err)
	}
	last := req.Messages[len(req.Messages)-1]
	var parts []struct {
		Type     string
		Text     string
		ImageURL struct{ URL string } `json:"image_url"`
	}
	if last.Role != "user" || json.Unmarshal(last.Content, &parts) != nil || len(parts) != 2 || parts[0].Type != "text" || !strings.Contains(parts[0].Text, "What does the chart show?") || parts[1].Type != "image_url" {
		t.Fatalf("the question on the wire: %s %s", last.Role, last.Content)
	}
	sent, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(parts[1].ImageURL.URL, "data:image/png;base64,"))
	if err != nil || !strings.HasPrefix(parts[1].ImageURL.URL, "data:image/png;base64,") {
		t.Fatalf("the image part: %.80s (%v)", parts[1].ImageURL.URL, err)
	}
	back, err := png.Decode(bytes.NewReader(sent))
	if err != nil || back.Bounds() != img.Bounds() || bytes.Contains(sent, []byte("secret-location")) || bytes.Contains(sent, []byte("tEXt")) {
		t.Fatalf("the image sent (%d bytes, %v): its metadata kept or not the picture", len(sent), err)
	}
	if r, g, b, _ := back.At(10, 35).RGBA(); r>>8 != 200 || g>>8 != 30 || b>>8 != 30 {
		t.Fatalf("the picture changed: %d %d %d", r>>8, g>>8, b>>8)
	}
}

// A carried vision model: `rehome models add tiny.gguf --mmproj
// mmproj.gguf` keeps the tiny model with the tiny projector, and `rehome
// ask --model NAME --image` starts llama.cpp's llama-server with
// --mmproj itself (it reads images only so): the image is sent and the
// model answers. The same model added without its projector reads no
// images, and the user is told which carried model does.
func TestAskImageCarriedModelCLI(t *testing.T) {
	needPodman(t)
	bin := llamatest.Need(t)
	dir := t.TempDir()
	script := tinymodel.VisionScript()
	model := llamatest.Model(t, bin, dir, script)
	proj := filepath.Join(t.TempDir(), "projector.gguf")
	if err := tinymodel.WriteProjector(proj); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 40, 30)))
	chart := filepath.Join(dir, "chart.png")
	os.WriteFile(chart, buf.Bytes(), 0o600)
	home := t.TempDir()
	if r := rehomeCLI(t, home, "models", "add", model, "--name", "tiny-vision", "--mmproj", proj); r.code != 0 {
		t.Fatalf("models add --mmproj: %+v", r)
	}
	if r := rehomeCLI(t, home, "models", "add", model, "--name", "tiny-blind"); r.code != 0 {
		t.Fatalf("models add: %+v", r)
	}
	r := rehomeCLI(t, home, "ask", "--model", "tiny-vision", "--image", chart, "--json", "What does the chart show?")
	var out struct{ Answer string }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.Answer != strings.Join(script.Answer, "") {
		t.Fatalf("ask --image with the carried vision model: %+v", r)
	}
	r = rehomeCLI(t, home, "ask", "--model", "tiny-blind", "--image", chart, "What does the chart show?")
	if r.code != 1 || !strings.Contains(r.stderr, "does not read images (so the images were not sent)") || !strings.Contains(r.stderr, "tiny-vision") {
		t.Fatalf("ask --image with the carried model without a projector: %+v", r)
	}
}
