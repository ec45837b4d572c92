package main

import (
	"context"
	"embed"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"rehome/app"
	"rehome/backend/logs"
)

//go:embed all:frontend/dist
var embedded embed.FS

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// commands is the table of subcommands.
func commands() []command {
	return []command{
		{"assistants", "manage stored assistants (add, list, show, edit, rm, import, export)", cmdAssistants},
		{"audit", "say per capability what ports, what you rebuild, what does not port", cmdAudit},
		{"hw", "detect CPU, RAM, GPUs and VRAM", cmdHW},
		{"models", "the catalog of open-weight models; add, local, rm, serve: the GGUF files you carry", cmdModels},
		{"fit", "estimate which models fit this machine's memory", cmdFit},
		{"ask", "ask a question in words: a local model writes the code, the sandbox runs it", cmdAsk},
		{"llm", "the local model servers: status (servers, models, tool calling)", cmdLLM},
		{"conversations", "the kept conversations: list, show, export (Markdown, notebook), rm", cmdConversations},
		{"run", "run a Python script in the sandbox against a file", cmdRun},
		{"session", "a Code Interpreter session that keeps its state: start, exec, list, stop, export", cmdSession},
		{"sandbox", "the code sandbox: doctor, image build|load|save|status, clean", cmdSandbox},
		{"serve", "serve the UI in a browser on this machine", cmdServe},
		{"doctor", "check the installation and the database", cmdDoctor},
		{"backup", "write a consistent copy of the database while rehome runs", cmdBackup},
		{"version", "print the version", cmdVersion},
	}
}

func main() {
	os.Exit(run(os.Args[1:]))
}

// run is main without the exit, so tests can call it.
func run(args []string) int {
	env := &cliEnv{stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin}
	app.Version = version
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-v", "--verbose":
			env.verbose = true
		case "--version":
			args[0] = "version"
			continue
		case "-h", "--help":
			printTable(env.stdout, "rehome", commands())
			return exitOK
		default:
			return env.usage("unknown flag %s (see `rehome --help`)", args[0])
		}
		args = args[1:]
	}
	// Hidden: the manual page, for the package build; touches no data.
	if len(args) > 0 && args[0] == "man" {
		return cmdMan(env, args[1:])
	}
	dir, err := env.dir()
	if err != nil {
		return env.fail(err)
	}
	log, closeLog := logs.New(logs.Options{Dir: dir, Verbose: env.verbose, Stderr: env.stderr})
	defer closeLog()
	env.log = log
	defer env.close()

	// No subcommand, or a file to open ("Open with rehome"): the window.
	if len(args) == 0 || isFileArg(args[0]) {
		var open string
		if len(args) > 0 {
			open = args[0]
		}
		return runWindow(env, open)
	}
	// Ctrl-C and SIGTERM end the command's context (the window handles
	// them itself): every long command — a run, an image save, an answer,
	// serve — stops its work, cleans up and exits with exitInterrupted. A
	// second Ctrl-C ends rehome at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); stop() }()
	env.ctx = ctx
	return dispatch(env, commands(), "rehome", args)
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

func cmdVersion(env *cliEnv, args []string) int {
	fs := env.flags("version", "version")
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	env.stdout.Write([]byte("rehome " + version + "\n"))
	return exitOK
}
