package app

import (
	"fmt"
	"log/slog"
	"runtime/debug"
)

// PanicError is the one way a panic becomes an error a user reads, for
// every boundary where outside bytes are parsed: the window's and the
// bridge's calls (Calls, app/calls.go: Wails v2 has no recover on its call
// path, so a panic there would end the window), the App's own goroutines
// (App.guard) and the terminal's commands.
// It says what stopped and that nothing was changed; the stack goes to
// the log (log may be nil).
func PanicError(log *slog.Logger, where string, r any) error {
	if log != nil {
		log.Error("panic", "in", where, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	}
	return fmt.Errorf("%s stopped on input it could not read (%v): nothing was changed; this is a bug in rehome: please report it with the log (run with --verbose)", where, r)
}

// guard, deferred first in a bound method with a named error result,
// turns a panic in it into PanicError.
func (a *App) guard(method string, err *error) {
	if r := recover(); r != nil {
		*err = PanicError(a.log, method, r)
	}
}
