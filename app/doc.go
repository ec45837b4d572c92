// Package app is the surface the UI talks to. Its exported methods on *App
// are bound to the Wails window and, unchanged, to the HTTP bridge of
// `rehome serve`. They hold no logic of their own: each one calls into
// backend/ or sandbox/ — through the one core (package core) that the CLI
// uses too — and hands the answer back.
package app
