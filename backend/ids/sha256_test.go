package ids

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func TestIsSHA256(t *testing.T) {
	sum := sha256.Sum256([]byte("rehome"))
	good := hex.EncodeToString(sum[:])
	for _, c := range []struct {
		s    string
		want bool
	}{
		{good, true},
		{strings.ToUpper(good), false},
		{good[:63], false},
		{good + "0", false},
		{good[:63] + "g", false},
		{"../" + good[3:], false},
		{"", false},
	} {
		if got := IsSHA256(c.s); got != c.want {
			t.Errorf("IsSHA256(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}
