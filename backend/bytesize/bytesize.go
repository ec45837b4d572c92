package bytesize

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Binary units.
const (
	KiB int64 = 1 << 10
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
	TiB int64 = 1 << 40
)

// Decimal units.
const (
	KB int64 = 1e3
	MB int64 = 1e6
	GB int64 = 1e9
	TB int64 = 1e12
)

var units = map[string]int64{
	"": 1, "b": 1, "byte": 1, "bytes": 1,
	"k": KiB, "m": MiB, "g": GiB, "t": TiB,
	"kib": KiB, "mib": MiB, "gib": GiB, "tib": TiB,
	"kb": KB, "mb": MB, "gb": GB, "tb": TB,
}

// Parse reads a size such as "24GiB", "8GB", "512m", "1.5 TiB" or
// "1048576" by the package's rule, rounded to the nearest byte.
func Parse(s string) (int64, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, fmt.Errorf("%w: the size is empty; give a number with a unit, such as 512MiB or 8GiB", ErrSize)
	}
	i := strings.IndexFunc(in, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := in, ""
	if i >= 0 {
		num, unit = in[:i], strings.TrimSpace(in[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if num == "" || err != nil {
		return 0, fmt.Errorf("%w: %q is not a number with a unit, such as 512MiB or 8GiB", ErrSize, s)
	}
	mul, ok := units[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("%w: %q has an unknown unit %q; use KiB, MiB, GiB, TiB (binary), KB, MB, GB, TB (decimal) or 512m, 2g (binary, as Podman)", ErrSize, s, unit)
	}
	b := math.Round(v * float64(mul))
	if b >= math.MaxInt64 {
		return 0, fmt.Errorf("%w: %q is too large", ErrSize, s)
	}
	return int64(b), nil
}

// Format writes n in the largest binary unit that keeps it at 1 or more,
// with one decimal that is dropped when it is zero: "900 bytes", "1 byte",
// "1.5 KiB", "512 MiB", "24 GiB", "23.7 GiB". The UI writes sizes the same
// way (frontend/src/lib/format.ts).
func Format(n int64) string {
	if n < 0 {
		if n == math.MinInt64 {
			return "-8 EiB"
		}
		return "-" + Format(-n)
	}
	if n < KiB {
		if n == 1 {
			return "1 byte"
		}
		return strconv.FormatInt(n, 10) + " bytes"
	}
	const names = "KMGTPE"
	v, i := float64(n)/float64(KiB), 0
	for i < len(names)-1 && math.Round(v*10)/10 >= 1024 {
		v /= 1024
		i++
	}
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) + " " + names[i:i+1] + "iB"
}
