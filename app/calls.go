package app

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"sync/atomic"
)

// Calls is the one door to the App's bound services (services.go) for
// the window and the bridge: every exported method of each service (each
// taking JSON-able arguments and returning (T, error) or error), reached
// by name, with a panic in it turned into PanicError.
//
// The window binds Calls, not the services: Wails v2.9.2 calls a bound
// method with reflect.Value.Call from a goroutine of its dispatcher
// (internal/frontend/dispatcher, calls.go) and recovers nowhere on that
// path, so a panic in a bound method ends the window. Wails binds every
// exported method of a bound struct and gives no way to wrap them, so
// Calls has exactly one, Call, and the page reaches the services' methods
// as window.go.app.Calls.Call(method, args) (frontend/src/lib/api.ts). A
// method added to a service is guarded by construction, in both faces.
// Method names are unique across the services (NewCalls panics on a
// repeat, which TestServicesNamesAreUnique catches), so a call needs no
// service name.
type Calls struct {
	a       *App
	methods map[string]reflect.Value
	service map[string]string // the service of each method
	made    atomic.Int64      // calls made so far (CallsMade)
}

// CallsMade is how many calls c has taken: the window reads it to tell a
// page at rest from one in use. A function, not a method: Wails would bind
// a method of Calls for the page.
func CallsMade(c *Calls) int64 { return c.made.Load() }

// NewCalls returns the door to a's services' methods.
func NewCalls(a *App) *Calls {
	src := a
	if src == nil {
		src = &App{} // its methods all stop on the missing core: errors in words
	}
	return newCalls(a, src.services())
}

func newCalls(a *App, services []service) *Calls {
	c := &Calls{a: a, methods: map[string]reflect.Value{}, service: map[string]string{}}
	for _, s := range services {
		v := reflect.ValueOf(s.v)
		t := v.Type()
		for i := 0; i < t.NumMethod(); i++ {
			name := t.Method(i).Name
			if other, ok := c.service[name]; ok {
				panic(fmt.Sprintf("app: %s.%s and %s.%s: a bound method's name must be unique", other, name, s.name, name))
			}
			c.methods[name] = v.Method(i)
			c.service[name] = s.name
		}
	}
	return c
}

// Service is the name of the service whose method that is ("" for none).
func (c *Calls) Service(method string) string { return c.service[method] }

// Has says whether the App has a method of that name.
func (c *Calls) Has(method string) bool {
	_, ok := c.methods[method]
	return ok
}

// Call calls the App's method by name with args (one JSON value each) and
// returns its result. An unknown method is ErrNoMethod, arguments that do
// not decode are ErrBadArguments, and a panic in the method is an error in
// words (PanicError), never the end of the window or the connection.
func (c *Calls) Call(method string, args []json.RawMessage) (any, error) {
	c.made.Add(1)
	m, ok := c.methods[method]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrNoMethod, method)
	}
	in, err := decodeArgs(m.Type(), args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", method, ErrBadArguments, err)
	}
	return c.invoke(method, m, in)
}

func decodeArgs(t reflect.Type, raw []json.RawMessage) ([]reflect.Value, error) {
	if len(raw) != t.NumIn() {
		return nil, fmt.Errorf("takes %d arguments, got %d", t.NumIn(), len(raw))
	}
	args := make([]reflect.Value, t.NumIn())
	for i := range args {
		p := reflect.New(t.In(i))
		if err := json.Unmarshal(raw[i], p.Interface()); err != nil {
			return nil, fmt.Errorf("argument %d: %v", i+1, err)
		}
		args[i] = p.Elem()
	}
	return args, nil
}

var errorType = reflect.TypeFor[error]()

// invoke calls m; a panic in it (outside bytes the method parses, a bug)
// is an error in words.
func (c *Calls) invoke(name string, m reflect.Value, args []reflect.Value) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			var log *slog.Logger
			if c.a != nil {
				log = c.a.log
			}
			res, err = nil, PanicError(log, name, r)
		}
	}()
	out := m.Call(args)
	for _, o := range out {
		if o.Type() == errorType {
			if !o.IsNil() {
				err = o.Interface().(error)
			}
		} else {
			res = o.Interface()
		}
	}
	return res, err
}
