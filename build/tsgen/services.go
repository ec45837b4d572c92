package main

import (
	"bytes"
	"fmt"
	"go/types"
	"maps"
	"sort"
	"strings"
)

// boundMethods returns the methods of obj's services (or of obj, which
// has none), each method name once across them all.
func (g *gen) boundMethods(obj *types.TypeName) []Method {
	var methods []Method
	seen := map[string]string{}
	for _, svc := range services(obj) {
		ms := types.NewMethodSet(types.NewPointer(svc.Type()))
		for i := 0; i < ms.Len(); i++ {
			fn := ms.At(i).Obj().(*types.Func)
			if !fn.Exported() {
				continue
			}
			g.where = svc.Name() + "." + fn.Name()
			if other, ok := seen[fn.Name()]; ok {
				g.fail("%s.%s has the same name: the UI calls a method by its name alone", other, fn.Name())
				continue
			}
			seen[fn.Name()] = svc.Name()
			m := g.method(fn)
			m.Service = svc.Name()
			methods = append(methods, m)
		}
	}
	return methods
}

// moduleNames are the names api.gen.ts declares itself that an exported
// Go method could take (its lower-case ones — methods, fns, bindAll,
// onEvent, call, on — no exported name can), each with what it is.
var moduleNames = map[string]string{
	"Methods": "its Methods interface (the methods' signatures)",
	"Events":  "its Events interface (the events Go sends)",
	"Input":   "its Input type (what Go accepts as an argument)",
}

// refuseModuleNames fails each bound method named as something the module
// declares beside the method's own function: one of moduleNames, a
// service's object, a Go package's namespace. TypeScript would refuse a
// second const of a service's name (TS2451) and merge a function with an
// interface or type of its name, so that api.Methods would name both.
func (g *gen) refuseModuleNames(methods []Method) {
	own := maps.Clone(moduleNames)
	for _, m := range methods {
		own[m.Service] = "the object of the service " + m.Service
	}
	for obj := range g.decls {
		own[obj.Pkg().Name()] = "the namespace of Go package " + obj.Pkg().Path()
	}
	for _, m := range methods {
		if what, ok := own[m.Name]; ok {
			g.where = m.Service + "." + m.Name
			g.fail("api.gen.ts declares %s under that name: rename the method", what)
		}
	}
}

// services are the bound types of obj: its embedded pointers to types of
// its own package that have exported methods, or obj itself.
func services(obj *types.TypeName) []*types.TypeName {
	var out []*types.TypeName
	if st, ok := obj.Type().Underlying().(*types.Struct); ok {
		for i := 0; i < st.NumFields(); i++ {
			f := st.Field(i)
			p, ok := f.Type().(*types.Pointer)
			if !f.Embedded() || !ok {
				continue
			}
			n, ok := p.Elem().(*types.Named)
			if !ok || n.Obj().Pkg() != obj.Pkg() {
				continue
			}
			ms := types.NewMethodSet(p)
			for j := 0; j < ms.Len(); j++ {
				if ms.At(j).Obj().Exported() {
					out = append(out, n.Obj())
					break
				}
			}
		}
	}
	if len(out) == 0 {
		out = append(out, obj)
	}
	return out
}

// renderServices exports the functions a line per bound type, and one
// object per bound type, its methods by name (api.AssistantService.ListAssistants
// is api.ListAssistants).
func renderServices(b *bytes.Buffer, methods []Method) {
	by := map[string][]string{}
	var names []string
	for _, m := range methods {
		if _, ok := by[m.Service]; !ok {
			names = append(names, m.Service)
		}
		by[m.Service] = append(by[m.Service], m.Name)
	}
	sort.Strings(names)
	b.WriteString("\n/** The bound services: their functions, and an object each with its methods. */\n")
	for _, n := range names {
		fmt.Fprintf(b, "export const { %s } = fns;\n", strings.Join(by[n], ", "))
		fmt.Fprintf(b, "export const %s = {\n", n)
		for _, m := range by[n] {
			fmt.Fprintf(b, "  %s,\n", m)
		}
		b.WriteString("} as const;\n")
	}
}
