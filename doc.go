// Command rehome moves custom GPTs off ChatGPT onto local, offline model
// weights. With no arguments it opens the window; with a subcommand it
// works in the terminal, with no display needed.
package main
