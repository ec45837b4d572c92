package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// No function of the product is over 80 lines, from its func keyword to
// its closing brace (issue 30: the ask loop's turn, the run's steps and
// the CLI's commands were split where they mixed concerns). Tests and the
// test supports under internal/ do not count; generated files would not
// either (none is Go).
func TestNoProductionFunctionOver80Lines(t *testing.T) {
	const most = 80
	funcs := 0
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if p != "." && (strings.HasPrefix(n, ".") || n == "frontend" || n == "testdata" || n == "node_modules" || p == "internal") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			funcs++
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > most {
				t.Errorf("%s: %s is %d lines: split it where it mixes concerns (at most %d)", fset.Position(fd.Pos()), funcName(fd), n, most)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if funcs < 1000 {
		t.Fatalf("read only %d functions: is the test running in the module's root?", funcs)
	}
	t.Logf("%d functions read", funcs)
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return fmt.Sprintf("(%s).%s", id.Name, fd.Name.Name)
	}
	return fd.Name.Name
}
