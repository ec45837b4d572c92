package main

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"rehome/build/tsgen/internal/fixture"
)

// TestJSONRules generates the fixture package and checks each rule of
// encoding/json that tsgen mirrors, and that the members of Outer are
// exactly the keys encoding/json writes for it.
func TestJSONRules(t *testing.T) {
	src, methods, err := Generate(Config{Package: "rehome/build/tsgen/internal/fixture", Type: "API"})
	if err != nil {
		t.Fatal(err)
	}
	ts := string(src)
	for _, want := range []string{
		"export type Color = 'blue' | 'red';",
		"export type Level = 1 | 3;",
		"    promoted: string;",          // an embedded struct's fields are promoted
		"    maybe?: number;",            // through an embedded pointer they may be absent
		"    from_hidden: boolean;",      // an unexported embedded struct's too
		"    shadowed: number;",          // the shallower of two with one name
		"    Plain: string;",             // no tag: the Go name
		"    '-': string;",               // `json:"-,"`
		"    optional?: string;",         // omitempty
		"    always: fixture.Inner;",     // omitempty never leaves out a struct
		"    zero?: fixture.Inner;",      // omitzero does
		"    quoted: string;",            // ,string
		"    ptr: fixture.Inner | null;", // a nil pointer is null
		"    opt_ptr?: fixture.Inner;",   // unless omitempty leaves it out
		"    when: string;",              // time.Time
		"    took: number;",              // time.Duration, in nanoseconds
		"    raw: string;",               // []byte, base64
		"    list: fixture.Color[];",
		"    grid: string[][];",
		"    fixed: number[];",
		"    by_name: { [key: string]: fixture.Level };",
		"    by_number: { [key: string]: boolean };",
		"    anything: unknown;",
		"    message: unknown;", // json.RawMessage
		"    anonymous: { A: number; };",
		"    self?: fixture.Outer;",
		"    'with-hyphen': string;",
		// Outer shadows one of Inner's members, so it cannot extend Inner;
		// Whole can.
		"export interface Whole extends fixture.Inner {\n    note: string;\n  }",
		"/** API.Get */\n  Get(id: string, in_: Input<fixture.Outer>): Promise<fixture.Outer>;",
		"  List(c: fixture.Color): Promise<fixture.Inner | null>;",
		"  Nothing(): Promise<void>;",
		"  OnlyError(level: fixture.Level): Promise<void>;",
		"export const { Get, List, Nothing, OnlyError, Wrap } = fns;",
		// The events, found in the calls of emit, a payload type each (or
		// their union).
		"export interface Events {\n  'fixture:inner': fixture.Inner | fixture.Inner | null | string;\n  'fixture:level': fixture.Level;\n  'fixture:line': string;\n}",
	} {
		if !strings.Contains(ts, want) {
			t.Errorf("generated module lacks %q", want)
		}
	}
	for _, never := range []string{"Skipped", "unexported", "unexportedMethod", "Inner: "} {
		if strings.Contains(ts, never) {
			t.Errorf("generated module has %q", never)
		}
	}
	var names []string
	for _, m := range methods {
		names = append(names, m.Name)
	}
	if want := []string{"Get", "List", "Nothing", "OnlyError", "Wrap"}; !slices.Equal(names, want) {
		t.Errorf("methods %v, want %v", names, want)
	}

	// The members of Outer against what encoding/json writes for a value
	// with every pointer set (omitempty members are left out when empty,
	// so fill them).
	v := fixture.Outer{Extra: &fixture.Extra{}, Optional: "x", Zero: fixture.Inner{Promoted: "x"}, OptPtr: &fixture.Inner{}, Self: &fixture.Outer{}}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	body := ts[strings.Index(ts, "export interface Outer {"):]
	body = body[:strings.Index(body, "\n  }\n")]
	var members []string
	for _, m := range regexp.MustCompile(`(?m)^    '?([^':?]+)'?\??: `).FindAllStringSubmatch(body, -1) {
		members = append(members, m[1])
	}
	slices.Sort(members)
	if !slices.Equal(keys, members) {
		t.Errorf("Outer's members differ from encoding/json's keys:\ngenerated: %v\njson:      %v", members, keys)
	}
}

// TestRefusesWhatJSONCannotCarry: a method whose types cannot travel as
// JSON, or that the bridge cannot call, is an error, not a silent "unknown".
func TestRefusesWhatJSONCannotCarry(t *testing.T) {
	_, _, err := Generate(Config{Package: "rehome/build/tsgen/internal/fixture/bad", Type: "API"})
	if err == nil {
		t.Fatal("no error for a method taking a channel")
	}
	for _, want := range []string{"API.Chan", "chan int", "API.Two", "returns 2 values"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}
