package actions

import (
	"os"
	"testing"
)

// FuzzParseSchema feeds action schemas (an imported GPT's, someone
// else's file) to the schema reader; seeded with the real schemas of
// testdata. Nothing may panic.
func FuzzParseSchema(f *testing.F) {
	for _, p := range []string{"testdata/weather.json", "testdata/shop.yaml"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("openapi: 3.1.0\npaths: {}\n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 1<<20 {
			return
		}
		if s, err := Parse(text); err == nil {
			s.Names()
		}
	})
}
