package main

import (
	"go/ast"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The faces (app/ and everything under it, and main.go) reach the domain
// through backend/core only: they import neither the store, the sandbox
// (nor its link or recipe) nor the model loop, and they do not take the
// core's database handle (Core.Store). Every Go file counts, whatever its
// build tags (the window's desktop files too). Issue 30.
func TestFacesImportCoreNotTheDomainBelowIt(t *testing.T) {
	forbidden := func(path string) bool {
		return path == "rehome/backend/store" || path == "rehome/backend/llm" ||
			path == "rehome/sandbox" || strings.HasPrefix(path, "rehome/sandbox/")
	}
	faces, seen := 0, map[string]bool{}
	eachGoFile(t, func(p string, f *ast.File) {
		if !isFace(p) {
			return
		}
		faces++
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if forbidden(path) {
				t.Errorf("%s imports %s: call a service of backend/core (or use the name core gives the type)", p, path)
			}
			if strings.HasPrefix(path, "rehome/") {
				seen[path] = true
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 0 {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Store" {
				t.Errorf("%s: %s takes the core's database handle: ask a service of core instead", p, exprString(sel))
			}
			return true
		})
	})
	if faces < 50 {
		t.Fatalf("found only %d files of the faces: is the test running in the module's root?", faces)
	}
	if !seen["rehome/backend/core"] {
		t.Fatal("no face imports backend/core: the scan is not reading the faces")
	}
	var list []string
	for p := range seen {
		list = append(list, p)
	}
	sort.Strings(list)
	t.Logf("%d files of the faces import %d of rehome's packages: %s", faces, len(list), strings.Join(list, " "))
}

// No import runs back up a layer: nothing below the faces imports one of
// them (app/…), and nothing below backend/core imports core — a server
// of the MCP protocol, like the bridge, is a face (app/mcpserve). Issue 30.
func TestNoImportRunsBackUpALayer(t *testing.T) {
	n := 0
	eachGoFile(t, func(p string, f *ast.File) {
		if isFace(p) {
			return
		}
		n++
		core := strings.HasPrefix(filepath.ToSlash(p), "backend/core/")
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			switch {
			case path == "rehome/app" || strings.HasPrefix(path, "rehome/app/"):
				t.Errorf("%s imports the face %s: a face calls down, never the other way", p, path)
			case !core && path == "rehome/backend/core":
				t.Errorf("%s imports backend/core from below it: move it under app/ if it is a face, or hand it what it needs", p)
			}
		}
	})
	if n < 100 {
		t.Fatalf("found only %d files below the faces", n)
	}
}

// The sandbox reads its recipe and seccomp profile from sandbox/recipe:
// nothing under sandbox/ imports build/ (packaging), which is not part of
// the program at run time.
func TestSandboxImportsNothingOfBuild(t *testing.T) {
	n := 0
	eachGoFile(t, func(p string, f *ast.File) {
		if !strings.HasPrefix(filepath.ToSlash(p), "sandbox/") {
			return
		}
		n++
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if strings.HasPrefix(path, "rehome/build") {
				t.Errorf("%s imports %s: what the sandbox needs at run time lives under sandbox/", p, path)
			}
		}
	})
	if n < 30 {
		t.Fatalf("found only %d files of the sandbox", n)
	}
}

// isFace reports whether the file at p (relative to the module's root) is
// one of the faces': main.go or a file under app/.
func isFace(p string) bool {
	p = filepath.ToSlash(p)
	return p == "main.go" || strings.HasPrefix(p, "app/")
}

func exprString(sel *ast.SelectorExpr) string {
	var parts []string
	var x ast.Expr = sel
	for {
		switch e := x.(type) {
		case *ast.SelectorExpr:
			parts = append([]string{e.Sel.Name}, parts...)
			x = e.X
			continue
		case *ast.Ident:
			parts = append([]string{e.Name}, parts...)
		case *ast.CallExpr:
			parts = append([]string{"(…)"}, parts...)
		}
		break
	}
	return strings.Join(parts, ".") + "()"
}
