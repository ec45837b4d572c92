package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
)

// Output is where the generated module lives, from the repository root.
const Output = "frontend/src/lib/gen/api.gen.ts"

func main() {
	var cfg Config
	out := flag.String("o", Output, "the file to write")
	check := flag.Bool("check", false, "write nothing; exit 1 when the file differs from what would be written")
	flag.StringVar(&cfg.Package, "pkg", DefaultPackage, "the Go package of the bound type")
	flag.StringVar(&cfg.Type, "type", DefaultType, "the bound type, whose exported methods the UI calls")
	flag.StringVar(&cfg.Tags, "tags", "", "build tags to load the package with (comma or space separated)")
	flag.StringVar(&cfg.Emit, "emit", "emit", "the bound type's method that sends events (event string, payload any)")
	flag.BoolVar(&cfg.NullSlices, "null-slices", false, "type slices and maps as possibly null, as a nil one is sent")
	flag.Parse()

	src, _, err := Generate(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tsgen:", err)
		os.Exit(1)
	}
	if *check {
		old, _ := os.ReadFile(*out)
		if !bytes.Equal(old, src) {
			fmt.Fprintf(os.Stderr, "tsgen: %s is out of date: run `make gen`\n", *out)
			os.Exit(1)
		}
		return
	}
	if err := os.MkdirAll(dirOf(*out), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "tsgen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "tsgen:", err)
		os.Exit(1)
	}
}

func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "."
}
