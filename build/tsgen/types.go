package main

import (
	"go/constant"
	"go/types"
	"sort"
	"strings"
)

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
