package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Every package of rehome has a doc.go holding its package comment, and
// every exported name outside tests has a doc comment (a type's methods
// only when the type is exported).
func TestEveryPackageAndExportedNameDocumented(t *testing.T) {
	dirs := map[string]bool{}
	eachGoFile(t, func(p string, f *ast.File) {
		dirs[filepath.Dir(p)] = true
		if f.Doc != nil && filepath.Base(p) != "doc.go" {
			t.Errorf("%s: the package comment belongs in doc.go", p)
		}
		for _, name := range undocumented(f) {
			t.Errorf("%s: %s has no doc comment", p, name)
		}
	})
	if len(dirs) < 10 {
		t.Fatalf("found only %d packages: is the test running in the module's root?", len(dirs))
	}
	for dir := range dirs {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "doc.go"), nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil || f.Doc == nil {
			t.Errorf("%s: no doc.go with a package comment saying what the package holds", dir)
		}
	}
}

func undocumented(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || d.Doc != nil {
				continue
			}
			if d.Recv != nil {
				t := d.Recv.List[0].Type
				if s, ok := t.(*ast.StarExpr); ok {
					t = s.X
				}
				if ix, ok := t.(*ast.IndexExpr); ok {
					t = ix.X
				}
				if id, ok := t.(*ast.Ident); ok && !id.IsExported() {
					continue
				}
			}
			out = append(out, "func "+d.Name.Name)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
						out = append(out, "type "+s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && s.Doc == nil && d.Doc == nil && s.Comment == nil {
							out = append(out, n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// Each package's sentinel errors stand together in its errors.go, as
// bbolt's do, each with a comment saying when it is returned: a reader
// finds every error a package can answer with in one place.
func TestSentinelErrorsInErrorsGo(t *testing.T) {
	n := 0
	eachGoFile(t, func(p string, f *ast.File) {
		for name, commented := range sentinels(f) {
			n++
			if filepath.Base(p) != "errors.go" {
				t.Errorf("%s: the sentinel error %s belongs in %s", p, name, filepath.Join(filepath.Dir(p), "errors.go"))
			}
			if !commented {
				t.Errorf("%s: the sentinel error %s has no comment of its own saying when it is returned", p, name)
			}
		}
	})
	if n < 10 {
		t.Fatalf("found only %d sentinel errors: is the test running in the module's root?", n)
	}
}

// sentinels are the package-level variables of f set to errors.New(…) or
// fmt.Errorf(…), and whether each has a comment of its own.
func sentinels(f *ast.File) map[string]bool {
	out := map[string]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, v := range vs.Values {
				call, ok := v.(*ast.CallExpr)
				if !ok {
					continue
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					continue
				}
				x, _ := sel.X.(*ast.Ident)
				if x != nil && (x.Name == "errors" && sel.Sel.Name == "New" || x.Name == "fmt" && sel.Sel.Name == "Errorf") {
					out[vs.Names[i].Name] = vs.Doc != nil || (!g.Lparen.IsValid() && g.Doc != nil)
				}
			}
		}
	}
	return out
}

// eachGoFile parses every Go file of rehome but the tests (not the
// frontend, testdata or hidden folders) and hands it to fn.
func eachGoFile(t *testing.T, fn func(path string, f *ast.File)) {
	t.Helper()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "frontend" || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		fn(p, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
