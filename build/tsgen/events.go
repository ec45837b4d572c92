package main

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"sort"

	"golang.org/x/tools/go/packages"
)

// checkSource type-checks pkg from its source against the packages
// go/packages loaded for its imports, so its syntax (the emit calls) and
// its types share one universe with theirs.
func checkSource(pkg *packages.Package) (*types.Package, *types.Info, []*ast.File, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range pkg.CompiledGoFiles {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, nil, err
		}
		files = append(files, f)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: importerFunc(func(path string) (*types.Package, error) {
		if path == "unsafe" {
			return types.Unsafe, nil
		}
		if p, ok := pkg.Imports[path]; ok && p.Types != nil {
			return p.Types, nil
		}
		return nil, fmt.Errorf("%s imports %s, which was not loaded", pkg.PkgPath, path)
	})}
	tpkg, err := conf.Check(pkg.PkgPath, fset, files, info)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("type-check %s: %w", pkg.PkgPath, err)
	}
	return tpkg, info, files, nil
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// Event is one event the bound type emits to the UI, with its payload.
type Event struct {
	Name    string
	Payload string // the TypeScript type of its data
}

// events finds every call of the bound type's emit method (emit(event
// string, payload any)) with a constant event name, and the static type
// of its payload. One event sent with payloads of several types gets
// their union.
func (g *gen) events(bound *types.Named, emit string, info *types.Info, files []*ast.File) []Event {
	var found bool
	ms := types.NewMethodSet(types.NewPointer(bound))
	for i := 0; i < ms.Len(); i++ {
		if ms.At(i).Obj().Name() == emit {
			found = true
		}
	}
	if !found {
		g.where = bound.Obj().Name()
		g.fail("no method %s(event string, payload any) to find the events in: give its name with -emit", emit)
		return nil
	}
	payloads := map[string][]types.Type{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 2 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != emit {
				return true
			}
			s := info.Selections[sel]
			if s == nil || s.Kind() != types.MethodVal || !isBound(s.Recv(), bound) {
				return true
			}
			name := info.Types[call.Args[0]].Value
			g.where = fmt.Sprintf("%s.%s", bound.Obj().Name(), emit)
			if name == nil || name.Kind() != constant.String {
				g.fail("an event name must be a constant string")
				return true
			}
			ev := constant.StringVal(name)
			t := info.Types[call.Args[1]].Type
			if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
				t = types.Default(t)
			}
			for _, seen := range payloads[ev] {
				if types.Identical(seen, t) {
					return true
				}
			}
			payloads[ev] = append(payloads[ev], t)
			return true
		})
	}
	var out []Event
	for ev, ts := range payloads {
		g.where = "event " + ev
		var parts []string
		for _, t := range ts {
			parts = append(parts, g.ts(t).String())
		}
		sort.Strings(parts)
		e := Event{Name: ev}
		for i, p := range parts {
			if i > 0 {
				e.Payload += " | "
			}
			e.Payload += p
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func isBound(recv types.Type, bound *types.Named) bool {
	if p, ok := recv.(*types.Pointer); ok {
		recv = p.Elem()
	}
	n, ok := recv.(*types.Named)
	return ok && n.Obj() == bound.Obj()
}
