package main

import (
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// makefileTags are the build tag sets the Makefile builds and tests with,
// read from it so that this test cannot drift from them: TAGS (the
// terminal binary and every test) and APP_TAGS (the window binary).
func makefileTags(t *testing.T) (tags, appTags []string) {
	data, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		name, value, ok := strings.Cut(line, ":=")
		name = strings.TrimSpace(name)
		if !ok || (name != "TAGS" && name != "APP_TAGS") {
			continue
		}
		var set []string
		for _, f := range strings.Fields(value) {
			switch {
			case f == "$(TAGS)":
				set = append(set, sets["TAGS"]...)
			case strings.Contains(f, "$("):
				t.Fatalf("the Makefile's %s names %s, which this test does not expand", name, f)
			default:
				set = append(set, f)
			}
		}
		sets[name] = set
	}
	tags, appTags = sets["TAGS"], sets["APP_TAGS"]
	if len(tags) == 0 || len(appTags) <= len(tags) {
		t.Fatalf("the Makefile's TAGS and APP_TAGS are not `NAME := tags…` lines any more (found %v): this test reads them there", sets)
	}
	return tags, appTags
}

// loadEveryTagSet type-checks every package of rehome and its tests with
// the window binary's tags (APP_TAGS), then again with the terminal
// binary's (TAGS) the packages whose files differ between the two
// (app/window's `!desktop` files), with the surface packages: a name used
// only in a file of one build is seen. Each load is returned.
func loadEveryTagSet(t *testing.T, fset *token.FileSet) [][]*packages.Package {
	tags, appTags := makefileTags(t)
	loads := [][]*packages.Package{loadTyped(t, fset, appTags, "rehome/...")}
	differ := differingPackages(t, appTags, tags)
	if len(differ) == 0 {
		t.Logf("type-checked with %s (no package's files differ with %s)", strings.Join(appTags, ","), strings.Join(tags, ","))
		return loads
	}
	loads = append(loads, loadTyped(t, fset, tags, append(differ, surfacePackages...)...))
	t.Logf("type-checked with %s, and %s again with %s", strings.Join(appTags, ","), strings.Join(differ, " "), strings.Join(tags, ","))
	return loads
}

// loadTyped loads patterns and their tests, type-checked, with tags.
func loadTyped(t *testing.T, fset *token.FileSet, tags []string, patterns ...string) []*packages.Package {
	cfg := &packages.Config{
		Fset:       fset,
		Mode:       packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedSyntax,
		Tests:      true,
		BuildFlags: []string{"-tags", strings.Join(tags, ",")},
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatalf("the packages do not type-check with tags %s", strings.Join(tags, ","))
	}
	return pkgs
}

// differingPackages are the folders (./path) of the packages of rehome,
// tests included, whose Go files are not the same with tags a and b.
func differingPackages(t *testing.T, a, b []string) []string {
	files := func(tags []string) map[string][]string {
		cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles, Tests: true, BuildFlags: []string{"-tags", strings.Join(tags, ",")}}
		pkgs, err := packages.Load(cfg, "rehome/...")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for _, p := range pkgs {
			if !strings.HasSuffix(p.PkgPath, ".test") { // a generated test main
				out[p.ID] = slices.Sorted(slices.Values(p.GoFiles))
			}
		}
		return out
	}
	fa, fb := files(a), files(b)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	note := func(fs []string) {
		if len(fs) == 0 {
			return
		}
		rel, err := filepath.Rel(wd, filepath.Dir(fs[0]))
		if err != nil {
			t.Fatal(err)
		}
		if dir := "./" + filepath.ToSlash(rel); !slices.Contains(out, dir) {
			out = append(out, dir)
		}
	}
	for id, fs := range fa {
		if !slices.Equal(fs, fb[id]) {
			note(fs)
			note(fb[id])
		}
	}
	for id, fs := range fb {
		if _, ok := fa[id]; !ok {
			note(fs)
		}
	}
	slices.Sort(out)
	return out
}
