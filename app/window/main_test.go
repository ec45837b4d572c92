package window

import (
	"testing"

	"rehome/internal/testsupport/rehomebin"
)

// rehomeBin is the terminal binary under test: $REHOME_BIN (make test sets
// it to build/bin/rehome), else one built here from the entry with the
// core tags alone, as `make build` builds the terminal binary.
var rehomeBin string

func TestMain(m *testing.M) { rehomebin.Main(m, &rehomeBin, "the window's tests") }

// cleanEnv is this process's environment without a display or a data
// folder of its own.
var cleanEnv = rehomebin.Env
