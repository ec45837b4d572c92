//go:build desktop

package main

// windowHere is true in the window binary (built with the desktop tags):
// it runs Wails, GTK and WebKitGTK in this process.
const windowHere = true

// execWindow is the terminal binary's hand-over to the window binary;
// runWindow never calls it here, where the window runs in this process.
func execWindow(env *cliEnv, _ string) int { return env.usage("this is the window binary already") }
