package hardware

import (
	"strings"
	"testing"
)

func TestParseBytes(t *testing.T) {
	good := map[string]uint64{
		"24GiB":       24 << 30,
		"24gib":       24 << 30,
		" 24 GiB ":    24 << 30,
		"8GB":         8_000_000_000,
		"512MiB":      512 << 20,
		"1.5TiB":      3 << 39,
		"64G":         64_000_000_000,
		"17179869184": 17179869184,
		"0":           0,
	}
	for in, want := range good {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":       "empty size",
		"GiB":    "not a number",
		"24XB":   "unknown unit",
		"-1GiB":  "not a number",
		"1.2.3G": "not a number",
		"9e9TiB": "",
	}
	for in, msg := range bad {
		_, err := ParseBytes(in)
		if err == nil {
			t.Errorf("ParseBytes(%q) accepted a bad size", in)
			continue
		}
		if msg != "" && !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseBytes(%q) error %q does not say %q", in, err, msg)
		}
	}
}

func TestGiB(t *testing.T) {
	for b, want := range map[uint64]string{24 << 30: "24.0 GiB", 512 << 20: "512 MiB", 25753026560: "24.0 GiB"} {
		if got := GiB(b); got != want {
			t.Errorf("GiB(%d) = %q, want %q", b, got, want)
		}
	}
}
