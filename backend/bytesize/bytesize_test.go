package bytesize

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		// Binary units, written out.
		{"24GiB", 24 * GiB},
		{"24gib", 24 * GiB},
		{" 24 GiB ", 24 * GiB},
		{"512MiB", 512 * MiB},
		{"1.5 GiB", 3 * GiB / 2},
		{"1.5TiB", 3 * TiB / 2},
		{"64KiB", 64 * KiB},
		// Decimal units, as on a spec sheet. Before one rule,
		// sandbox.ParseBytes read "8GB" as 8 GiB.
		{"8GB", 8_000_000_000},
		{"8gb", 8_000_000_000},
		{"500MB", 500_000_000},
		{"2TB", 2_000_000_000_000},
		{"1kb", 1000},
		// A bare letter is binary, as Podman reads --memory 512m. Before
		// one rule, hardware.ParseBytes read "64G" as 64×10⁹.
		{"512m", 512 * MiB},
		{"512M", 512 * MiB},
		{"2g", 2 * GiB},
		{"64G", 64 * GiB},
		{"64k", 64 * KiB},
		{"1t", TiB},
		// Bytes.
		{"1048576", MiB},
		{"0", 0},
		{"100b", 100},
		{"100 bytes", 100},
		{"17179869184", 16 * GiB},
		// Rounded to the byte.
		{"0.5", 1},
		{"1.0000001KiB", 1024},
	} {
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, says string }{
		{"", "empty"},
		{"   ", "empty"},
		{"GiB", "not a number"},
		{"lots", "not a number"},
		{"-1GiB", "not a number"},
		{"-1M", "not a number"},
		{"1.2.3G", "not a number"},
		{"1e9", "unknown unit"},
		{"24XB", "unknown unit"},
		{"5 parsecs", "unknown unit"},
		{"2 gigs", "unknown unit"},
		{"9e9TiB", "unknown unit"},
		{"9000000TiB", "too large"},
		{"99999999999999999999", "too large"},
	} {
		_, err := Parse(c.in)
		if err == nil {
			t.Errorf("Parse(%q) accepted a bad size", c.in)
			continue
		}
		if !errors.Is(err, ErrSize) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Parse(%q) error %q: want ErrSize saying %q", c.in, err, c.says)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"},
		{1, "1 byte"},
		{900, "900 bytes"},
		{1023, "1023 bytes"},
		{KiB, "1 KiB"},
		{1536, "1.5 KiB"},
		{512 * MiB, "512 MiB"},
		{2 * GiB, "2 GiB"},
		{24 * GiB, "24 GiB"},
		{25753026560, "24 GiB"}, // 23.98…
		{23_700 * MiB, "23.1 GiB"},
		{8_000_000_000, "7.5 GiB"},
		{3 * TiB / 2, "1.5 TiB"},
		{MiB - 1, "1 MiB"}, // 1023.999 KiB rounds up a unit, not to "1024 KiB"
		{GiB - 1, "1 GiB"},
		{-2 * MiB, "-2 MiB"},
	} {
		if got := Format(c.n); got != c.want {
			t.Errorf("Format(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// What Format writes, Parse reads back to within the rounding.
func TestFormatParses(t *testing.T) {
	for _, n := range []int64{0, 1, 900, KiB, 1536, 512 * MiB, 24 * GiB, 3 * TiB / 2} {
		got, err := Parse(Format(n))
		if err != nil || got != n {
			t.Errorf("Parse(Format(%d)) = %d, %v", n, got, err)
		}
	}
}
