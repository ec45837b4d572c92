package main

import (
	"strings"
	"testing"
)

// A bound type that embeds services binds theirs: each function names its
// service, each service is an object of its functions, the events are the
// state's, and a name on two services is refused.
func TestServicesAreTheBoundTypes(t *testing.T) {
	src, methods, err := Generate(Config{Package: "rehome/build/tsgen/internal/fixture/services", Type: "API"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range methods {
		got = append(got, m.Service+"."+m.Name)
	}
	if strings.Join(got, " ") != "Shelves.Count Books.ListBooks" {
		t.Fatalf("methods: %v", got)
	}
	ts := string(src)
	for _, want := range []string{
		"/** Books.ListBooks */\n  ListBooks(): Promise<string[]>;",
		"/** Shelves.Count */\n  Count(shelf: string): Promise<number>;",
		"export const { ListBooks } = fns;\nexport const Books = {\n  ListBooks,\n} as const;",
		"export const Shelves = {\n  Count,\n} as const;",
		"'books:changed': number;",
	} {
		if !strings.Contains(ts, want) {
			t.Errorf("no %q in:\n%s", want, ts)
		}
	}
	_, _, err = Generate(Config{Package: "rehome/build/tsgen/internal/fixture/services/dup", Type: "API"})
	if err == nil || !strings.Contains(err.Error(), "A.Same has the same name") {
		t.Fatalf("a name on two services: %v", err)
	}
}

// A bound method named as what the module declares itself (its Methods or
// Events interface, a service's object) is refused in words, each by its
// service and name; a method of no such name is not.
func TestMethodsNamedAsTheModulesOwnAreRefused(t *testing.T) {
	_, _, err := Generate(Config{Package: "rehome/build/tsgen/internal/fixture/services/clash", Type: "API"})
	if err == nil {
		t.Fatal("methods named Methods, Events and Shelves were generated")
	}
	t.Log(err)
	for _, want := range []string{
		"Books.Methods: api.gen.ts declares its Methods interface (the methods' signatures) under that name: rename the method",
		"Books.Events: api.gen.ts declares its Events interface (the events Go sends) under that name: rename the method",
		"Books.Shelves: api.gen.ts declares the object of the service Shelves under that name: rename the method",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no %q in:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "Count") {
		t.Errorf("Count refused:\n%v", err)
	}
}
