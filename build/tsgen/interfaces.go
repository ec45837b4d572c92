package main

import (
	"go/types"
	"reflect"
	"strings"
)

// iface declares a named struct as an interface. A named struct it embeds
// whose JSON members all stand in it unchanged (none shadowed, none made
// optional by a pointer) becomes a base it extends, so the embedded type's
// members are written once, where that type is declared.
func (g *gen) iface(name string, st *types.Struct) string {
	ms := g.members(st)
	var bases []string
	for i := 0; i < st.NumFields(); i++ {
		base, ok := g.base(st, i, ms)
		if !ok {
			continue
		}
		bases = append(bases, base)
		var own []member
		for _, m := range ms {
			if m.index[0] != i {
				own = append(own, m)
			}
		}
		ms = own
	}
	head := "export interface " + name
	if len(bases) > 0 {
		head += " extends " + strings.Join(bases, ", ")
	}
	return head + " " + block(ms, true)
}

// base returns the TypeScript name of st's field i when it is an embedded,
// exported named struct all of whose members are among ms, alike; ok is
// false otherwise, and its members are then written out in st.
func (g *gen) base(st *types.Struct, i int, ms []member) (string, bool) {
	sf := st.Field(i)
	if !sf.Anonymous() || reflect.StructTag(st.Tag(i)).Get("json") != "" {
		return "", false
	}
	named, ok := types.Unalias(sf.Type()).(*types.Named)
	if !ok || !named.Obj().Exported() || named.TypeArgs().Len() > 0 {
		return "", false
	}
	inner, ok := named.Underlying().(*types.Struct)
	if !ok || hasMethod(named, "MarshalJSON") || hasMethod(named, "MarshalText") {
		return "", false
	}
	if _, sp := special[qualified(named.Obj())]; sp {
		return "", false
	}
	lines := map[string]bool{}
	for _, m := range ms {
		if m.index[0] == i {
			lines[m.line] = true
		}
	}
	inherited := g.members(inner)
	if len(inherited) == 0 || len(inherited) != len(lines) {
		return "", false
	}
	for _, m := range inherited {
		if !lines[m.line] {
			return "", false
		}
	}
	return g.ts(named).expr, true
}

// member is one JSON member of a struct as a TypeScript line, with the
// field it comes from.
type member struct {
	field
	line string
}

// members renders st's JSON members, in field order.
func (g *gen) members(st *types.Struct) []member {
	var ms []member
	for _, f := range fields(st) {
		var t tsType
		if f.asString && quotable(f.typ) {
			t = tsType{expr: "string"}
			if _, ptr := f.typ.Underlying().(*types.Pointer); ptr {
				t.null = true
			}
		} else {
			t = g.ts(f.typ)
		}
		opt := ""
		if f.omit || f.optional {
			opt = "?"
			t.null = t.null && !f.omit // an empty value is left out, never null
		}
		ms = append(ms, member{field: f, line: propName(f.name) + opt + ": " + t.String() + ";"})
	}
	return ms
}

// object renders a struct's JSON members as a TypeScript object type, a
// member a line when multiline.
func (g *gen) object(st *types.Struct, multiline bool) string {
	return block(g.members(st), multiline)
}

// block writes members as an object type's body.
func block(ms []member, multiline bool) string {
	if len(ms) == 0 {
		return "{}"
	}
	lines := make([]string, len(ms))
	for i, m := range ms {
		lines[i] = m.line
	}
	if multiline {
		return "{\n  " + strings.Join(lines, "\n  ") + "\n}"
	}
	return "{ " + strings.Join(lines, " ") + " }"
}
