// Package window is rehome's desktop window: Wails with GTK and WebKitGTK,
// one window per data folder (a second launch hands its file over and
// brings the window forward), its remembered geometry, and the native
// dialogs and file drops the App asks for. The same main.go is built twice:
// rehome-window runs the window here (here.go); the terminal binary rehome
// links no GTK and execs rehome-window (exec.go).
package window
