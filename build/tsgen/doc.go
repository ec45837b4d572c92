// Command tsgen writes the TypeScript through which the UI calls Go: every
// exported method of the type bound to the window and to `rehome serve`'s
// bridge (app.App) as a typed function built on call() in
// frontend/src/lib/api.ts, and every Go type those methods take or return,
// as encoding/json writes and reads it, and the events it sends the UI
// (found in its emit calls) with their payloads. `make gen` runs it; the
// test beside it fails when the committed file no longer matches the Go
// source.
//
//	go run -tags "$(TAGS)" ./build/tsgen -tags "$(TAGS)" [-o file] [-check]
package main
