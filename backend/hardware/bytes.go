package hardware

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

var byteUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// ParseBytes parses a size such as "24GiB", "8GB", "512MiB", "1.5 TiB" or
// "17179869184". GB and MB are decimal (as on a spec sheet), GiB and MiB
// binary (as drivers count VRAM); units are case-insensitive.
func ParseBytes(s string) (uint64, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, fmt.Errorf("empty size: give a number with a unit, such as 24GiB or 8GB")
	}
	i := strings.IndexFunc(in, func(r rune) bool { return !(unicode.IsDigit(r) || r == '.') })
	num, unit := in, ""
	if i >= 0 {
		num, unit = in[:i], strings.ToLower(strings.TrimSpace(in[i:]))
	}
	if num == "" {
		return 0, fmt.Errorf("size %q is not a number with a unit, such as 24GiB or 8GB", s)
	}
	mult, ok := byteUnits[unit]
	if !ok {
		return 0, fmt.Errorf("size %q: unknown unit %q; use B, KB, MB, GB, TB (decimal) or KiB, MiB, GiB, TiB (binary), e.g. 24GiB", s, in[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("size %q is not a number with a unit, such as 24GiB or 8GB", s)
	}
	b := v * mult
	if b > math.MaxInt64 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return uint64(math.Round(b)), nil
}

// GiB formats bytes as GiB with one decimal ("23.7 GiB"), MiB below 1 GiB.
func GiB(b uint64) string {
	if b < 1<<30 {
		return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
}
