package main

import (
	"go/token"
	"go/types"
	"maps"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// surfacePackages are the packages whose exported surface is held to what
// other packages use (issue 30: "sandbox/ stays at the top ... its
// exported surface cut to what callers use").
var surfacePackages = []string{"rehome/sandbox", "rehome/sandbox/link", "rehome/sandbox/recipe"}

// surfaceKept are the exported names no other package of rehome names
// that stay exported for a reason the type checker does not see, each
// with that reason. (Three kinds are kept by rule, see keptByRule: the
// methods a standard interface calls, the types of what a caller holds,
// and the values of an enum a caller holds.)
var surfaceKept = map[string]string{}

// Every exported type, func, var, const and method of the sandbox, its
// link and its recipe is used by some other package of rehome (tests
// included), or is in surfaceKept with its reason. Struct fields do not
// count: encoding/json reads them. The same measure as docs/architecture.md's
// "sandbox exported names + methods" rows (go/packages and go/types over
// every package and test, with the Makefile's build tags: the window's,
// and the terminal binary's where they select other files).
func TestSandboxSurfaceIsWhatCallersUse(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks every package of rehome")
	}
	fset := token.NewFileSet()
	loads := loadEveryTagSet(t, fset)
	surface, used, kept := map[string]string{}, map[string]bool{}, map[string]string{}
	for _, pkgs := range loads {
		maps.Copy(surface, exportedSurface(fset, pkgs))
		maps.Copy(used, usedFromOutside(fset, pkgs))
	}
	if len(surface) == 0 {
		t.Fatal("no exported name found in the sandbox's packages")
	}
	for _, pkgs := range loads {
		maps.Copy(kept, keptByRule(fset, pkgs, used))
	}
	perPkg, byRule := map[string][2]int{}, map[string][]string{}
	var unused []string
	for pos, name := range surface {
		pkg := name[:strings.Index(name, " ")]
		n := perPkg[pkg]
		if strings.Contains(name, ".") {
			n[1]++
		} else {
			n[0]++
		}
		perPkg[pkg] = n
		if used[pos] {
			continue
		}
		if why := kept[pos]; why != "" {
			byRule[why] = append(byRule[why], name[strings.LastIndex(name, "/")+1:])
		} else if _, ok := surfaceKept[name]; !ok {
			unused = append(unused, name+" ("+pos+")")
		}
	}
	for name := range surfaceKept {
		found := false
		for _, s := range surface {
			found = found || s == name
		}
		if !found {
			t.Errorf("surfaceKept names %q, which is not exported (any more): drop it from the list", name)
		}
	}
	sort.Strings(unused)
	for _, u := range unused {
		t.Errorf("%s is exported but no other package uses it: unexport it (or delete it when dead)", u)
	}
	if perPkg["rehome/sandbox"][0] < 10 {
		t.Fatalf("found only %v exported names: is the test reading the sandbox?", perPkg)
	}
	for _, p := range surfacePackages {
		t.Logf("%s: %d exported names + %d methods", p, perPkg[p][0], perPkg[p][1])
	}
	for why, names := range byRule {
		sort.Strings(names)
		t.Logf("%d unused outside, kept: %s: %s", len(names), why, strings.Join(names, ", "))
	}
}

// exportedSurface maps the position of each exported name of the surface
// packages to "path Name" or "path Type.Method".
func exportedSurface(fset *token.FileSet, pkgs []*packages.Package) map[string]string {
	out := map[string]string{}
	for _, p := range pkgs {
		if !isSurface(p.PkgPath) || p.ID != p.PkgPath {
			continue
		}
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if !obj.Exported() {
				continue
			}
			out[fset.Position(obj.Pos()).String()] = p.PkgPath + " " + name
			tn, ok := obj.(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			named := tn.Type().(*types.Named)
			for i := 0; i < named.NumMethods(); i++ {
				if m := named.Method(i); m.Exported() {
					out[fset.Position(m.Pos()).String()] = p.PkgPath + " " + name + "." + m.Name()
				}
			}
			if it, ok := named.Underlying().(*types.Interface); ok {
				for i := 0; i < it.NumExplicitMethods(); i++ {
					if m := it.ExplicitMethod(i); m.Exported() {
						out[fset.Position(m.Pos()).String()] = p.PkgPath + " " + name + "." + m.Name()
					}
				}
			}
		}
	}
	return out
}

// usedFromOutside is the set of positions of the surface packages' objects
// that a package other than their own names (test variants of a surface
// package count as that package).
func usedFromOutside(fset *token.FileSet, pkgs []*packages.Package) map[string]bool {
	used := map[string]bool{}
	for _, p := range pkgs {
		if p.TypesInfo == nil {
			continue
		}
		for _, obj := range p.TypesInfo.Uses {
			if obj.Pkg() == nil || !isSurface(obj.Pkg().Path()) || obj.Pkg().Path() == p.PkgPath {
				continue
			}
			if f, ok := obj.(*types.Func); ok {
				obj = f.Origin()
			}
			used[fset.Position(obj.Pos()).String()] = true
		}
	}
	return used
}

func isSurface(path string) bool {
	for _, p := range surfacePackages {
		if p == path {
			return true
		}
	}
	return false
}

// The reasons keptByRule gives.
const (
	keptForInterface = "a standard interface calls the method (error's Error, errors.Unwrap, json.Marshaler)"
	keptHeld         = "the type of a parameter, result or field a caller uses, so a caller holds values of it (and the window's generated TypeScript names it)"
	keptEnum         = "a value of an enum type a caller holds (build/tsgen makes the TypeScript union from the exported constants)"
)

// keptByRule maps the position of each exported name of the surface
// packages that stays exported though no other package names it to the
// reason: a method with the signature of error's Error, Unwrap or
// MarshalJSON; a type reached from what other packages use (the
// parameters and results of the funcs and methods they call, the types of
// the vars they read, the exported fields of the types they name or
// hold); a constant of such a type.
func keptByRule(fset *token.FileSet, pkgs []*packages.Package, used map[string]bool) map[string]string {
	kept := map[string]string{}
	var typesOf []*types.Package
	for _, p := range pkgs {
		if isSurface(p.PkgPath) && p.ID == p.PkgPath {
			typesOf = append(typesOf, p.Types)
		}
	}
	pos := func(o types.Object) string { return fset.Position(o.Pos()).String() }
	var walk func(t types.Type)
	var held func(o types.Object)
	walk = func(t types.Type) {
		switch t := t.(type) {
		case *types.Named:
			o := t.Obj()
			if o.Pkg() != nil && isSurface(o.Pkg().Path()) && o.Exported() && kept[pos(o)] == "" {
				if !used[pos(o)] {
					kept[pos(o)] = keptHeld
				} else {
					kept[pos(o)] = "used"
				}
				held(o)
			}
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		case *types.Chan:
			walk(t.Elem())
		case *types.Signature:
			for i := 0; i < t.Params().Len(); i++ {
				walk(t.Params().At(i).Type())
			}
			for i := 0; i < t.Results().Len(); i++ {
				walk(t.Results().At(i).Type())
			}
		}
	}
	held = func(o types.Object) {
		switch o := o.(type) {
		case *types.Func, *types.Var:
			walk(o.Type())
		case *types.TypeName:
			switch u := o.Type().Underlying().(type) {
			case *types.Struct:
				for i := 0; i < u.NumFields(); i++ {
					if f := u.Field(i); f.Exported() || f.Embedded() {
						walk(f.Type())
					}
				}
			case *types.Interface:
				for i := 0; i < u.NumMethods(); i++ {
					walk(u.Method(i).Type())
				}
			default:
				walk(u)
			}
		}
	}
	for _, tp := range typesOf {
		scope := tp.Scope()
		for _, name := range scope.Names() {
			o := scope.Lookup(name)
			if used[pos(o)] {
				held(o)
			}
			tn, ok := o.(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			named := tn.Type().(*types.Named)
			for i := 0; i < named.NumMethods(); i++ {
				m := named.Method(i)
				if used[pos(m)] {
					held(m)
				}
				if standardMethod(m) {
					kept[pos(m)] = keptForInterface
				}
			}
		}
	}
	for _, tp := range typesOf {
		scope := tp.Scope()
		for _, name := range scope.Names() {
			c, ok := scope.Lookup(name).(*types.Const)
			if !ok {
				continue
			}
			if n, ok := c.Type().(*types.Named); ok && (kept[pos(n.Obj())] != "" || used[pos(n.Obj())]) {
				kept[pos(c)] = keptEnum
			}
		}
	}
	for p, why := range kept {
		if why == "used" {
			delete(kept, p)
		}
	}
	return kept
}

// standardMethod reports whether m has the name and signature of error's
// Error, errors.Unwrap's Unwrap or json.Marshaler's MarshalJSON.
func standardMethod(m *types.Func) bool {
	sig := m.Type().(*types.Signature)
	want := map[string]string{"Error": "func() string", "Unwrap": "func() error", "MarshalJSON": "func() ([]byte, error)"}[m.Name()]
	return want != "" && types.TypeString(types.NewSignatureType(nil, nil, nil, sig.Params(), sig.Results(), sig.Variadic()), nil) == want
}
