package main

import (
	"go/types"
	"reflect"
	"sort"
	"strings"
)

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
