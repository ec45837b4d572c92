// Package app is the surface the UI talks to. The exported methods of the
// App's services (services.go: one per area, embedded in *App) are bound to the Wails window and, unchanged, to the HTTP bridge of
// `rehome serve`. They hold no logic of their own: each one calls into
// backend/ or sandbox/ — through the one core (package core) that the CLI
// uses too — and hands the answer back.
package app
