package cli

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"rehome/app"
	"rehome/backend/logs"
)

// Config is what the entry (main.go) hands the CLI.
type Config struct {
	Version string                // rehome's version
	Assets  func() (fs.FS, error) // the built UI, for `rehome serve` and `rehome doctor`
}

// commands is the table of subcommands.
func commands() []command {
	return []command{
		{"assistants", "manage stored assistants (add, list, show, edit, rm, import, export)", cmdAssistants},
		{"audit", "say per capability what ports, what you rebuild, what does not port", cmdAudit},
		{"hw", "detect CPU, RAM, GPUs and VRAM", cmdHW},
		{"models", "the catalog of open-weight models; add, local, rm, serve: the GGUF files you carry; pull: through Ollama", cmdModels},
		{"fit", "estimate which models fit this machine's memory", cmdFit},
		{"ask", "ask a question in words: a local model writes the code, the sandbox runs it", cmdAsk},
		{"actions", "an assistant's GPT actions (OpenAPI) the model may call: add, list, test, signin, rm", cmdActions},
		{"knowledge", "an assistant's knowledge files, indexed for its file_search: add, list, search, rm", cmdKnowledge},
		{"library", "the Kiwix libraries (.zim files) you carry for web browsing offline: add, list, search, rm; browsing's settings", cmdLibrary},
		{"llm", "the local model servers: status (servers, models, tool calling)", cmdLLM},
		{"memory", "what models were asked to remember: list, add, edit, rm, import (ChatGPT's saved memories), settings", cmdMemory},
		{"canvas", "a conversation's canvas (its textdocs): show, diff, edit, restore, export", cmdCanvas},
		{"conversations", "the kept conversations: list, show, export (Markdown, notebook), rm", cmdConversations},
		{"run", "run a Python script in the sandbox against a file", cmdRun},
		{"session", "a Code Interpreter session that keeps its state: start, exec, list, stop, export", cmdSession},
		{"settings", "the sandbox's saved limits and Sandbox host: show, set KEY=VALUE…, reset", cmdSettings},
		{"sandbox", "the code sandbox: doctor, image build|load|save|status, clean", cmdSandbox},
		{"serve", "serve the UI in a browser on this machine", cmdServe},
		{"mcp", "MCP both ways: serve assistants to MCP clients; give assistants MCP servers' tools (serve, config, add, list, test, rm, import)", cmdMCP},
		{"doctor", "check the installation and the database", cmdDoctor},
		{"backup", "write a consistent copy of the database while rehome runs", cmdBackup},
		{"version", "print the version", cmdVersion},
	}
}

// Run runs the command line args (without the program's name) in the
// terminal and returns the exit code. Leading flags: -v/--verbose,
// --version, -h/--help.
func Run(args []string, cfg Config) int {
	// Every string printed to a terminal goes through one filter (term.go).
	env := &cliEnv{stdout: safeWriter(os.Stdout), stderr: safeWriter(os.Stderr), stdin: os.Stdin, version: cfg.Version, assets: cfg.Assets}
	if env.assets == nil {
		env.assets = noAssets
	}
	app.Version = cfg.Version
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
	// Beside a window or `rehome serve`, the command runs in it (door.go).
	if !runsHere(args) {
		if code, ok := env.viaDoor(dir, args); ok {
			return code
		}
	}

	// Ctrl-C and SIGTERM end the command's context: every long command —
	// a run, an image save, an answer, serve — stops its work, cleans up
	// and exits with exitInterrupted. A second Ctrl-C ends rehome at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); stop() }()
	env.ctx = ctx
	return guarded(env, args)
}

// guarded runs the command; a panic in it (outside bytes it parsed) is
// one line in words and exit 1, never a Go stack trace.
func guarded(env *cliEnv, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = env.fail(app.PanicError(env.log, "rehome "+strings.Join(args[:min(len(args), 2)], " "), r))
		}
	}()
	return dispatch(env, commands(), "rehome", args)
}

// noAssets is the UI of a build without one.
func noAssets() (fs.FS, error) {
	return nil, errors.New("this build of rehome has no UI built in: rebuild it with `make build`")
}

func cmdVersion(env *cliEnv, args []string) int {
	fs := env.flags("version", "version")
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	env.stdout.Write([]byte("rehome " + env.version + "\n"))
	return exitOK
}
