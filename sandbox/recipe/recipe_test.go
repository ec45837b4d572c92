package recipe

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The recipe's digest (and so the image's tag and archive name) covers the
// seccomp profile the image carries: a changed profile is a new image.
func TestDigestCoversSeccompProfile(t *testing.T) {
	p := SeccompProfile()
	if Digest() != digestWith(p) || Tag() != Digest()[:12] {
		t.Fatal("Digest is not the files and the profile")
	}
	changed := bytes.Replace(p, []byte(`"keyctl"`), []byte(`"getpid"`), 1)
	if bytes.Equal(changed, p) || digestWith(changed) == Digest() {
		t.Fatal("a changed profile keeps the recipe's digest")
	}
	if !json.Valid(p) || bytes.ContainsAny(p, "\n") {
		t.Fatal("the profile is not one line of JSON (an image label)")
	}
}
