package main

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"rehome/app/cli"
	"rehome/app/window"
)

//go:embed all:frontend/dist
var embedded embed.FS

//go:embed build/appicon.png
var icon []byte

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

func main() {
	os.Exit(run(os.Args[1:]))
}

// run is main without the exit: no subcommand, or a file to open ("Open
// with rehome"), opens the window; anything else is the CLI's.
func run(args []string) int {
	rest, verbose := args, false
	for len(rest) > 0 && (rest[0] == "-v" || rest[0] == "--verbose") {
		rest, verbose = rest[1:], true
	}
	if len(rest) > 0 && !isFileArg(rest[0]) {
		return cli.Run(args, cli.Config{Version: version, Assets: assets})
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		fmt.Fprintln(os.Stderr, "rehome: no display found (DISPLAY and WAYLAND_DISPLAY are unset): starting `rehome serve` instead; open the URL below in a browser on this machine.")
		return cli.Run(append(args[:len(args)-len(rest):len(args)-len(rest)], "serve"), cli.Config{Version: version, Assets: assets})
	}
	var open string
	if len(rest) > 0 {
		open = rest[0]
	}
	if !window.Here {
		// The terminal binary links no GTK: it starts rehome-window.
		return window.Exec(open, verbose)
	}
	return window.Run(window.Config{Version: version, Verbose: verbose, Open: open, Assets: assets, Icon: icon,
		Door: cli.WindowDoor(cli.Config{Version: version, Assets: assets})})
}

// isFileArg reports whether arg names an existing file rather than a
// subcommand (the .desktop file passes the file to open).
func isFileArg(arg string) bool {
	if !strings.ContainsRune(arg, '/') && !strings.Contains(arg, ".") {
		return false
	}
	st, err := os.Stat(arg)
	return err == nil && st.Mode().IsRegular()
}

// assets returns the built frontend.
func assets() (fs.FS, error) {
	return fs.Sub(embedded, "frontend/dist")
}
