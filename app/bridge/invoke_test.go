package bridge

import (
	"reflect"
	"strings"
	"testing"
)

// A bound method that panics answers an error in words: on 1c9eba1 a
// panic (a hostile GGUF header) dropped the connection with no message.
func TestInvokeTurnsPanicsIntoErrors(t *testing.T) {
	m := reflect.ValueOf(func() (int, error) { panic("uint64 overflow in Elements") })
	res, err := invoke("AddCarriedModel", m, nil)
	if res != nil || err == nil || !strings.Contains(err.Error(), "AddCarriedModel stopped on input it could not read (uint64 overflow in Elements)") {
		t.Fatalf("%v %v", res, err)
	}
}
