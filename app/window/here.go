//go:build desktop

package window

// Here is true in the window binary, rehome-window (built with the desktop
// tags): it runs Wails, GTK and WebKitGTK in this process.
const Here = true

// Exec is the terminal binary's hand-over to the window binary; the entry
// never calls it here, where the window runs in this process.
func Exec(string, bool) int { return Run(Config{}) }
