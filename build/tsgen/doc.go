// Command tsgen writes the TypeScript through which the UI calls Go: every
// exported method of the types bound to the window and to `rehome serve`'s
// bridge (app.App's embedded services, one per area) as a typed function built on call() in
// frontend/src/lib/api.ts, and every Go type those methods take or return,
// as encoding/json writes and reads it, and the events it sends the UI
// (found in its emit calls) with their payloads. `make gen` runs it; the
// test beside it fails when the committed file no longer matches the Go
// source. Each function is commented with its service, and each service is
// an object of its functions.
//
//	go run -tags "$(TAGS)" ./build/tsgen -tags "$(TAGS)" [-o file] [-check]
package main
