package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/constant"
	"go/types"
	"reflect"
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

// special maps types whose JSON form is not their Go structure.
var special = map[string]string{
	"time.Time":                "string", // RFC 3339
	"encoding/json.RawMessage": "unknown",
	"encoding/json.Number":     "string",
	"time.Duration":            "number", // nanoseconds
}

// plainMarshalers are types whose MarshalJSON writes their own fields
// unchanged (it only fills in defaults), so their structure stands.
var plainMarshalers = map[string]bool{
	"rehome/sandbox.DoctorReport": true, // writes a nil Checks as []
}

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

// tsType is a TypeScript type expression; null says Go's JSON may be null.
type tsType struct {
	expr string
	null bool
}

func (t tsType) String() string {
	if t.null {
		return t.expr + " | null"
	}
	return t.expr
}

// elem renders t as an array's element.
func (t tsType) elem() string {
	if t.null || strings.Contains(t.expr, "|") {
		return "(" + t.String() + ")"
	}
	return t.expr
}

func qualified(obj *types.TypeName) string {
	if obj.Pkg() == nil {
		return obj.Name()
	}
	return obj.Pkg().Path() + "." + obj.Name()
}

func hasMethod(t types.Type, name string) bool {
	for _, typ := range []types.Type{t, types.NewPointer(t)} {
		if sel := types.NewMethodSet(typ).Lookup(nil, name); sel != nil {
			return true
		}
	}
	return false
}

// ts converts a Go type to the TypeScript type of its JSON form.
func (g *gen) ts(t types.Type) tsType {
	switch t := t.(type) {
	case *types.Alias:
		return g.ts(types.Unalias(t))
	case *types.Named:
		obj := t.Obj()
		q := qualified(obj)
		if s, ok := special[q]; ok {
			return tsType{expr: s}
		}
		if obj.Pkg() == nil {
			g.fail("%s cannot travel as JSON", q)
			return tsType{expr: "unknown"}
		}
		if t.TypeArgs().Len() > 0 {
			g.fail("generic type %s: not supported by tsgen", q)
			return tsType{expr: "unknown"}
		}
		if hasMethod(t, "MarshalJSON") && !plainMarshalers[q] {
			g.fail("%s has its own MarshalJSON: add it to tsgen's special (its TypeScript type) or plainMarshalers (its fields stand)", q)
			return tsType{expr: "unknown"}
		}
		if hasMethod(t, "MarshalText") {
			return tsType{expr: "string"}
		}
		if _, ok := g.decls[obj]; !ok {
			g.decls[obj] = "" // mark before recursing: types may refer to themselves
			g.decls[obj] = g.declare(t)
		}
		// Nil slices, maps and pointers of a named type are null too.
		null := false
		switch t.Underlying().(type) {
		case *types.Slice, *types.Map:
			null = g.nullSlices && !isBytes(t.Underlying())
		case *types.Pointer:
			null = true
		}
		return tsType{expr: obj.Pkg().Name() + "." + obj.Name(), null: null}
	case *types.Basic:
		switch {
		case t.Info()&types.IsBoolean != 0:
			return tsType{expr: "boolean"}
		case t.Info()&(types.IsInteger|types.IsFloat) != 0:
			return tsType{expr: "number"}
		case t.Info()&types.IsString != 0:
			return tsType{expr: "string"}
		}
		g.fail("%s cannot travel as JSON", t)
		return tsType{expr: "unknown"}
	case *types.Pointer:
		e := g.ts(t.Elem())
		return tsType{expr: e.expr, null: true}
	case *types.Slice:
		if isBytes(t) {
			return tsType{expr: "string"} // base64
		}
		return tsType{expr: g.ts(t.Elem()).elem() + "[]", null: g.nullSlices}
	case *types.Array:
		return tsType{expr: g.ts(t.Elem()).elem() + "[]"}
	case *types.Map:
		k := t.Key()
		kb, _ := k.Underlying().(*types.Basic)
		if !(kb != nil && kb.Info()&(types.IsString|types.IsInteger) != 0) && !hasMethod(k, "MarshalText") {
			g.fail("map key %s cannot travel as JSON", k)
		}
		// Not Record<…>: a Go type named Record would shadow it.
		return tsType{expr: "{ [key: string]: " + g.ts(t.Elem()).String() + " }", null: g.nullSlices}
	case *types.Struct:
		return tsType{expr: g.object(t, false)}
	case *types.Interface:
		return tsType{expr: "unknown"}
	}
	g.fail("%s cannot travel as JSON", t)
	return tsType{expr: "unknown"}
}

func isBytes(t types.Type) bool {
	s, ok := t.(*types.Slice)
	if !ok {
		return false
	}
	b, ok := s.Elem().(*types.Basic)
	return ok && b.Kind() == types.Byte && !hasMethod(s.Elem(), "MarshalJSON") && !hasMethod(s.Elem(), "MarshalText")
}

// declare returns the declaration of a named type, inside its namespace.
func (g *gen) declare(t *types.Named) string {
	name := t.Obj().Name()
	switch u := t.Underlying().(type) {
	case *types.Struct:
		return g.iface(name, u)
	case *types.Basic:
		if lits := constants(t); len(lits) > 0 {
			return "export type " + name + " = " + strings.Join(lits, " | ") + ";"
		}
		return "export type " + name + " = " + g.ts(u).String() + ";"
	default:
		// A nil value of the type is null where it is used, not here.
		x := g.ts(u)
		return "export type " + name + " = " + x.expr + ";"
	}
}

// constants returns the literals of the constants of exactly type t
// declared in its package, so a named string or number type becomes a
// union of its values.
func constants(t *types.Named) []string {
	scope := t.Obj().Pkg().Scope()
	var lits []string
	seen := map[string]bool{}
	for _, n := range scope.Names() {
		c, ok := scope.Lookup(n).(*types.Const)
		if !ok || !c.Exported() || !types.Identical(c.Type(), t) {
			continue
		}
		var lit string
		switch c.Val().Kind() {
		case constant.String:
			lit = tsString(constant.StringVal(c.Val()))
		case constant.Int, constant.Float:
			lit = c.Val().ExactString()
		case constant.Bool:
			lit = c.Val().String()
		default:
			continue
		}
		if !seen[lit] {
			seen[lit] = true
			lits = append(lits, lit)
		}
	}
	sort.Strings(lits)
	return lits
}

func tsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`)
	return "'" + r.Replace(s) + "'"
}

// field is one JSON member of a struct, found as encoding/json finds it.
type field struct {
	name     string
	tagged   bool
	index    []int
	typ      types.Type
	omit     bool // omitempty or omitzero: absent when empty
	asString bool // the ",string" option
	optional bool // reached through an embedded pointer, absent when nil
}

// fields lists the JSON members of st with encoding/json's rules: tags,
// "-", unexported fields left out, embedded structs' fields promoted, and
// of several with one name the shallowest (or the one tagged) wins.
func fields(st *types.Struct) []field {
	all, depth := allFields(st)
	out := dominant(all, depth)
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].index, out[j].index
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return len(a) < len(b)
	})
	return out
}

// fieldLevel is one struct to read in allFields' breadth-first walk: the
// index path to it and whether it sits behind an embedded pointer.
type fieldLevel struct {
	st       *types.Struct
	index    []int
	optional bool
}

// allFields walks st and its embedded structs breadth first, as
// encoding/json does, and gives every field JSON would see with the
// shallowest depth each name is found at.
func allFields(st *types.Struct) ([]field, map[string]int) {
	var all []field
	depth := map[string]int{}
	visited := map[*types.Struct]bool{}
	next := []fieldLevel{{st: st}}
	for d := 0; len(next) > 0; d++ {
		current := next
		next = nil
		for _, l := range current {
			if visited[l.st] {
				continue
			}
			visited[l.st] = true
			for i := 0; i < l.st.NumFields(); i++ {
				f, embed, ok := fieldOf(l, i)
				if !ok {
					continue
				}
				if embed != nil {
					next = append(next, *embed)
					continue
				}
				if _, ok := depth[f.name]; !ok {
					depth[f.name] = d
				}
				all = append(all, f)
			}
		}
	}
	return all, depth
}

// fieldOf reads field i of l's struct: the field JSON sees, or the
// embedded struct to walk next (embed), or ok false when JSON skips it.
func fieldOf(l fieldLevel, i int) (f field, embed *fieldLevel, ok bool) {
	sf := l.st.Field(i)
	tag := reflect.StructTag(l.st.Tag(i)).Get("json")
	ft := sf.Type()
	viaPtr := false
	if p, isPtr := types.Unalias(ft).(*types.Pointer); isPtr && sf.Anonymous() {
		ft, viaPtr = p.Elem(), true
	}
	inner, isStruct := ft.Underlying().(*types.Struct)
	if n, isNamed := types.Unalias(ft).(*types.Named); isNamed {
		if _, sp := special[qualified(n.Obj())]; sp {
			isStruct = false
		}
	}
	if sf.Anonymous() {
		if !sf.Exported() && !isStruct {
			return field{}, nil, false
		}
	} else if !sf.Exported() {
		return field{}, nil, false
	}
	if tag == "-" {
		return field{}, nil, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	index := append(append([]int(nil), l.index...), i)
	if name == "" && sf.Anonymous() && isStruct {
		return field{}, &fieldLevel{st: inner, index: index, optional: l.optional || viaPtr}, true
	}
	f = field{name: name, tagged: name != "", index: index, typ: sf.Type(), optional: l.optional}
	if f.name == "" {
		f.name = sf.Name()
	}
	for _, o := range strings.Split(opts, ",") {
		switch o {
		case "omitempty":
			f.omit = f.omit || omitEmptyApplies(sf.Type())
		case "omitzero":
			f.omit = true
		case "string":
			f.asString = true
		}
	}
	return f, nil, true
}

// dominant keeps, of the fields with one name, the shallowest; of several
// at that depth, the one tagged; of several tagged (or none), none.
func dominant(all []field, depth map[string]int) []field {
	byName := map[string][]field{}
	for _, f := range all {
		if len(f.index) == depth[f.name]+1 {
			byName[f.name] = append(byName[f.name], f)
		}
	}
	var out []field
	for _, fs := range byName {
		if len(fs) == 1 {
			out = append(out, fs[0])
			continue
		}
		var tagged []field
		for _, f := range fs {
			if f.tagged {
				tagged = append(tagged, f)
			}
		}
		if len(tagged) == 1 {
			out = append(out, tagged[0])
		}
	}
	return out
}

// omitEmptyApplies says whether omitempty can leave a value of t out
// (encoding/json never leaves out a struct for it).
func omitEmptyApplies(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Struct:
		return false
	case *types.Array:
		return u.Len() == 0
	}
	return true
}

// quotable says whether the ",string" option applies to t.
func quotable(t types.Type) bool {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsBoolean|types.IsInteger|types.IsFloat|types.IsString) != 0
}

func propName(n string) string {
	for i, r := range n {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return tsString(n)
		}
	}
	if n == "" {
		return "''"
	}
	return n
}

var tsReserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`break case catch class const continue debugger default delete do else enum
		export extends false finally for function if import in instanceof new null return super switch this throw
		true try typeof var void while with as implements interface let package private protected public static
		yield await arguments eval`) {
		tsReserved[w] = true
	}
}

// render writes the module: the types in a namespace per Go package, then
// one function per method.
func (g *gen) render(cfg Config, methods []Method) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by build/tsgen from %s.%s; DO NOT EDIT.\n", cfg.Package, cfg.Type)
	b.WriteString("// Run `make gen` after changing a method of it or a type one takes or returns.\n")
	b.WriteString("//\n")
	b.WriteString("// The Go types as encoding/json writes them (a nil pointer is null;\n")
	if g.nullSlices {
		b.WriteString("// so is a nil slice or map;\n")
	} else {
		b.WriteString("// a nil slice or map is null too, though typed here as never null;\n")
	}
	b.WriteString("// omitempty makes a member optional; time.Time is an RFC 3339 string),\n")
	b.WriteString("// each in a namespace named for its Go package, and one function per method,\n")
	b.WriteString("// which reaches Go through call() in the window and over the bridge alike.\n\n")
	b.WriteString("/* eslint-disable */\n")
	b.WriteString("import { call, on } from '../api';\n")
	g.renderTypes(&b)
	g.renderEvents(&b)
	renderMethods(&b, methods)
	renderServices(&b, methods)
	return b.Bytes()
}

// renderTypes writes the types, in a namespace per Go package.
func (g *gen) renderTypes(b *bytes.Buffer) {
	byNS := map[string][]*types.TypeName{}
	paths := map[string]string{}
	for obj := range g.decls {
		ns := obj.Pkg().Name()
		paths[ns] = obj.Pkg().Path()
		byNS[ns] = append(byNS[ns], obj)
	}
	var nss []string
	for ns := range byNS {
		nss = append(nss, ns)
	}
	sort.Strings(nss)
	for _, ns := range nss {
		objs := byNS[ns]
		sort.Slice(objs, func(i, j int) bool { return objs[i].Name() < objs[j].Name() })
		fmt.Fprintf(b, "\n/** Types of Go package %s. */\nexport namespace %s {\n", paths[ns], ns)
		for i, obj := range objs {
			if i > 0 {
				b.WriteString("\n")
			}
			for _, line := range strings.Split(g.decls[obj], "\n") {
				b.WriteString("  " + line + "\n")
			}
		}
		b.WriteString("}\n")
	}
}

// renderEvents writes Input<T> and the events Go sends, typed.
func (g *gen) renderEvents(b *bytes.Buffer) {
	b.WriteString(`
/**
 * What Go accepts for T as an argument: encoding/json leaves a member that
 * is not sent at its zero value, so every member is optional, all the way
 * down.
 */
export type Input<T> = T extends string | number | boolean | null | undefined
  ? T
  : T extends (infer E)[]
    ? Input<E>[]
    : { [K in keyof T]?: Input<T[K]> };
`)
	b.WriteString("\n/** The events Go sends the UI, each with the type of its data. */\nexport interface Events {\n")
	for _, e := range g.evs {
		b.WriteString("  " + tsString(e.Name) + ": " + e.Payload + ";\n")
	}
	b.WriteString(`}

/** Subscribes to an event Go sends; returns the unsubscribe function. */
export function onEvent<E extends keyof Events>(event: E, handler: (data: Events[E]) => void): () => void {
  return on(event, handler);
}
`)
}

// renderMethods writes the methods' names, their signatures in one
// interface, and the functions: each is call() of its name and arguments,
// made once for all by bindAll rather than written out per method
// (renderServices exports them).
func renderMethods(b *bytes.Buffer, methods []Method) {
	b.WriteString("\n/** The names of the methods, as the bridge serves them. */\n")
	b.WriteString("export const methods = [\n")
	for _, m := range methods {
		b.WriteString("  " + tsString(m.Name) + ",\n")
	}
	b.WriteString("] as const;\n")
	b.WriteString("\n/** The methods, each as the UI calls it: call() of its name and arguments. */\nexport interface Methods {\n")
	for _, m := range methods {
		var params []string
		for _, p := range m.Params {
			params = append(params, p.Name+": "+p.Type)
		}
		fmt.Fprintf(b, "  /** %s.%s */\n  %s(%s): Promise<%s>;\n", m.Service, m.Name, m.Name, strings.Join(params, ", "), m.Result)
	}
	b.WriteString(`}

function bindAll(): Methods {
  const bound: { [name: string]: (...args: unknown[]) => Promise<unknown> } = {};
  for (const name of methods) bound[name] = (...args) => call(name, ...args);
  return bound as unknown as Methods;
}

const fns = bindAll();
`)
}
