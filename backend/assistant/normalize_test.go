package assistant

import (
	"encoding/json"
	"strings"
	"testing"
)

// Lists are never null in the stored JSON: the UI reads them as arrays.
func TestNormalizeGivesEmptyListsNotNull(t *testing.T) {
	a := Assistant{Name: " x "}
	a.Normalize()
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "null") {
		t.Fatalf("null in %s", b)
	}
	if a.Name != "x" {
		t.Fatalf("name not trimmed: %q", a.Name)
	}
}
