package assistant

import (
	"errors"
	"strings"
	"testing"
)

// The editor's fields (welcome message, default model, picture) are kept
// as given and bounded: a picture that vision.Picture did not make (an
// SVG, one too large, a data URL that does not decode) and an over-long
// welcome message are refused in words, and nothing is stored.
func TestEditorFieldsBounded(t *testing.T) {
	s := newService(t)
	pic := testPicture(t)
	a, err := s.Create(Assistant{Name: "Analyst", WelcomeMessage: "  Hello!  ", Model: " qwen3:0.6b ", Picture: pic})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(a.ID)
	if err != nil || got.WelcomeMessage != "Hello!" || got.Model != "qwen3:0.6b" || got.Picture != pic {
		t.Fatalf("stored %q %q %.30q (%v)", got.WelcomeMessage, got.Model, got.Picture, err)
	}
	for _, c := range []struct {
		a    Assistant
		want string
	}{
		{Assistant{Name: "x", Picture: "data:image/svg+xml;base64,PHN2Zz4="}, "not a PNG or JPEG"},
		{Assistant{Name: "x", Picture: "https://example.com/me.png"}, "not a PNG or JPEG"},
		{Assistant{Name: "x", Picture: "data:image/png;base64,iVBORw0KGgo="}, "header does not read"},
		{Assistant{Name: "x", WelcomeMessage: strings.Repeat("é", MaxWelcome+1)}, "welcome message is longer than 4096"},
	} {
		if _, err := s.Create(c.a); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40q: %v, want %q", c.a.Picture+c.a.WelcomeMessage, err, c.want)
		}
	}
	if list, _ := s.List(); len(list) != 1 {
		t.Fatalf("%d stored, want the first alone", len(list))
	}
}

// The picture goes along to Open WebUI as its model's profile image.
func TestOpenWebUIExportTakesThePicture(t *testing.T) {
	pic := testPicture(t)
	out, _, err := OpenWebUI(Assistant{Name: "Analyst", Picture: pic}, ExportOptions{Model: "qwen2.5:7b"})
	if err != nil || !strings.Contains(string(out), `"profile_image_url": "`+pic+`"`) && !strings.Contains(string(out), `"profile_image_url":"`+pic+`"`) {
		t.Fatalf("the export lacks the picture (%v): %.300s", err, out)
	}
	out, _, _ = OpenWebUI(Assistant{Name: "Plain"}, ExportOptions{Model: "qwen2.5:7b"})
	if !strings.Contains(string(out), "/static/favicon.png") {
		t.Fatalf("without a picture, Open WebUI's own: %.300s", out)
	}
}
