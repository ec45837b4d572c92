package app

import (
	"reflect"
	"strings"
	"testing"
)

// Every method the UI calls is on exactly one service, the door reaches
// each, and the App's own method set (what Go callers reach, through the
// embedded services) adds none the door lacks.
func TestServicesCoverTheBoundMethods(t *testing.T) {
	a := &App{}
	c := NewCalls(a)
	total := 0
	per := map[string]int{}
	for _, s := range a.services() {
		typ := reflect.TypeOf(s.v)
		if typ.NumMethod() == 0 {
			t.Errorf("%s has no bound method", s.name)
		}
		for i := 0; i < typ.NumMethod(); i++ {
			name := typ.Method(i).Name
			if got := c.Service(name); got != s.name {
				t.Errorf("%s.%s: the door says service %q", s.name, name, got)
			}
			per[s.name]++
			total++
		}
	}
	if len(c.methods) != total {
		t.Fatalf("the door has %d methods, the services %d", len(c.methods), total)
	}
	at := reflect.TypeOf(a)
	for i := 0; i < at.NumMethod(); i++ {
		if name := at.Method(i).Name; c.Service(name) == "" {
			t.Errorf("*App has %s, which no service binds", name)
		}
	}
	if c.Service("Status") != "SystemService" || c.Service("ListAssistants") != "AssistantService" || c.Service("Ask") != "AskService" {
		t.Fatalf("services: %v", per)
	}
	t.Logf("%d bound methods: %v", total, per)
}

type twinA struct{}

func (*twinA) Same() error { return nil }

type twinB struct{}

func (*twinB) Same() error { return nil }

// Two services with a method of one name would make a call by name
// ambiguous: the door refuses to be made.
func TestServicesNamesAreUnique(t *testing.T) {
	defer func() {
		r := recover()
		if msg, _ := r.(string); !strings.Contains(msg, "twinA.Same and twinB.Same") {
			t.Fatalf("two services' Same: %v", r)
		}
	}()
	newCalls(&App{}, []service{{"twinA", &twinA{}}, {"twinB", &twinB{}}})
}
