// Package cli is rehome's terminal face: one subcommand per file
// (`rehome ask` in ask.go, `rehome run` in run.go, …), each a
// `func cmdX(env *cliEnv, args []string) int` listed in the table in
// cli.go. A command parses its flags, calls a service of the core
// (package core), renders what comes back and adds the terminal's words
// (hints.go); it holds no use case of its own.
package cli
