package main

import (
	"errors"
	"fmt"
	"go/types"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// The type the UI's calls reach, unless Config says otherwise.
const (
	DefaultPackage = "rehome/app"
	DefaultType    = "App"
)

// Config says what to generate from.
type Config struct {
	Package string // import path of the bound type's package
	// Type is the bound type: its pointer's exported methods are the
	// API, unless it embeds services (pointers to types of its package
	// with exported methods), which are then the bound types, each its own
	// area of the API. Its Emit method is where the events come from.
	Type string
	Tags string // build tags the package needs (comma or space separated)
	Dir  string // where to run the go tool; "" is the current folder
	Emit string // the bound type's method that sends events to the UI ("emit")
	// NullSlices types a slice or map as "T[] | null", as encoding/json
	// writes a nil one. Off, they are typed T[] (as Wails' own generator
	// does): the UI then trusts Go to send [] where it matters.
	NullSlices bool
}

// Method is one method the UI may call.
type Method struct {
	Service string // the bound type it is on
	Name    string
	Params  []Param
	Result  string // the TypeScript type the call resolves to
}

// Param is one argument of a Method.
type Param struct{ Name, Type string }

// Generate loads cfg's package and returns the TypeScript module and the
// methods it wraps, by name.
func Generate(cfg Config) ([]byte, []Method, error) {
	if cfg.Package == "" {
		cfg.Package = DefaultPackage
	}
	if cfg.Type == "" {
		cfg.Type = DefaultType
	}
	if cfg.Emit == "" {
		cfg.Emit = "emit"
	}
	methods, g, err := load(cfg)
	if err != nil {
		return nil, nil, err
	}
	return g.render(cfg, methods), methods, nil
}

func load(cfg Config) ([]Method, *gen, error) {
	var flags []string
	if tags := strings.Join(strings.FieldsFunc(cfg.Tags, func(r rune) bool { return r == ',' || r == ' ' }), ","); tags != "" {
		flags = append(flags, "-tags="+tags)
	}
	pkgs, err := packages.Load(&packages.Config{
		// NeedDeps: each package's whole export data, so its constants
		// are all there (a dependent's shallow view lacks unused ones).
		Mode:       packages.NeedName | packages.NeedTypes | packages.NeedImports | packages.NeedDeps | packages.NeedCompiledGoFiles,
		BuildFlags: flags,
		Dir:        cfg.Dir,
	}, cfg.Package)
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", cfg.Package, err)
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	})
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("load %s (build tags %q): %s", cfg.Package, cfg.Tags, strings.Join(errs, "; "))
	}
	if len(pkgs) != 1 || pkgs[0].Types == nil {
		return nil, nil, fmt.Errorf("load %s: no such package", cfg.Package)
	}
	tpkg, info, files, err := checkSource(pkgs[0])
	if err != nil {
		return nil, nil, err
	}
	obj, ok := tpkg.Scope().Lookup(cfg.Type).(*types.TypeName)
	if !ok {
		return nil, nil, fmt.Errorf("%s has no type %s", cfg.Package, cfg.Type)
	}
	g := &gen{decls: map[*types.TypeName]string{}, nullSlices: cfg.NullSlices}
	if named, ok := obj.Type().(*types.Named); ok {
		g.evs = g.events(named, cfg.Emit, info, files)
	}
	methods := g.boundMethods(obj)
	g.refuseModuleNames(methods)
	// A namespace per Go package: two packages of one name would merge.
	paths := map[string]string{}
	for obj := range g.decls {
		ns, path := obj.Pkg().Name(), obj.Pkg().Path()
		if p, ok := paths[ns]; ok && p != path {
			g.where = "namespaces"
			g.fail("packages %s and %s are both named %s", p, path, ns)
		}
		paths[ns] = path
	}
	if len(g.errs) > 0 {
		sort.Strings(g.errs)
		// An embedded struct's members are converted twice (see iface).
		g.errs = slices.Compact(g.errs)
		return nil, nil, errors.New(strings.Join(g.errs, "\n"))
	}
	sort.Slice(methods, func(i, j int) bool { return methods[i].Name < methods[j].Name })
	return methods, g, nil
}

// gen collects the declarations of the named types it meets.
type gen struct {
	decls      map[*types.TypeName]string
	nullSlices bool
	evs        []Event
	errs       []string
	where      string // what is being converted, for errors
}

func (g *gen) fail(format string, args ...any) {
	g.errs = append(g.errs, g.where+": "+fmt.Sprintf(format, args...))
}

func (g *gen) method(fn *types.Func) Method {
	sig := fn.Type().(*types.Signature)
	m := Method{Name: fn.Name(), Result: "void"}
	if sig.Variadic() {
		g.fail("variadic methods cannot be called from the UI")
	}
	for i := 0; i < sig.Params().Len(); i++ {
		p := sig.Params().At(i)
		name := p.Name()
		if name == "" || name == "_" {
			name = fmt.Sprintf("arg%d", i)
		}
		if tsReserved[name] {
			name += "_"
		}
		t := g.ts(p.Type())
		if _, basic := p.Type().Underlying().(*types.Basic); !basic {
			// encoding/json leaves a member the UI does not send at its
			// zero value: an argument need not be complete.
			t = tsType{expr: "Input<" + t.String() + ">"}
		}
		m.Params = append(m.Params, Param{Name: name, Type: t.String()})
	}
	res := sig.Results()
	var values []types.Type
	for i := 0; i < res.Len(); i++ {
		if t := res.At(i).Type(); !isError(t) {
			values = append(values, t)
		} else if i != res.Len()-1 {
			g.fail("an error must be the last result")
		}
	}
	switch len(values) {
	case 0:
	case 1:
		m.Result = g.ts(values[0]).String()
	default:
		g.fail("returns %d values; the bridge carries one (and an error)", len(values))
	}
	return m
}

func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}
