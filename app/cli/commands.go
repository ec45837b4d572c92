package cli

import "slices"

// The one tree of rehome's commands: every command and subcommand, its
// one-line summary and what runs it. One dispatch walks it (tree.go), and
// the help, the manual page (man.go), the shell completion (completion.go)
// and the door's rule of what runs in the terminal (door.go) are read
// from it: a command is added here, once.

// tree is rehome's commands, listed by area. A group lists its
// subcommands; the summary of a group is followed, wherever it is listed,
// by its subcommands' names (line).
func tree() command {
	return command{name: "rehome", subs: slices.Concat(assistantCommands(), runCommands(), systemCommands())}
}

// assistantCommands are the assistants and what they carry: their store,
// audits, actions, knowledge, libraries, memory and MCP servers.
func assistantCommands() []command {
	return []command{
		{name: "assistants", summary: "manage stored assistants", subs: []command{
			{name: "add", summary: "store a new assistant", run: cmdAssistantsAdd},
			{name: "list", summary: "list stored assistants, newest first", run: cmdAssistantsList},
			{name: "show", summary: "show one assistant", run: cmdAssistantsShow},
			{name: "edit", summary: "change fields of an assistant", run: cmdAssistantsEdit},
			{name: "rm", summary: "delete an assistant", run: cmdAssistantsRm},
			{name: "import", summary: "import a GPT description (JSON) or a rehome bundle", run: cmdAssistantsImport},
			{name: "export", summary: "export as an Ollama Modelfile, Open WebUI JSON or a rehome bundle", run: cmdAssistantsExport},
		}},
		// Alone (or with flags first) it runs an audit.
		{name: "audit", summary: "say per capability what ports, what you rebuild, what does not port; the audits kept", run: cmdAuditRun, subs: []command{
			{name: "list", summary: "list stored audits, newest first", run: cmdAuditList},
			{name: "show", summary: "show one stored audit", run: cmdAuditShow},
			{name: "compare", summary: "say what changed between two audits, and why", run: cmdAuditCompare},
			{name: "checklist", summary: "the steps to move an assistant, from its latest audit", run: cmdAuditChecklist},
			{name: "rules", summary: "print the rules table the audit applies", run: cmdAuditRules},
			{name: "rm", summary: "delete a stored audit", run: cmdAuditRm},
		}},
		{name: "actions", summary: "an assistant's GPT actions (OpenAPI) the model may call", subs: []command{
			{name: "add", summary: "add an action from its OpenAPI schema (a file, or - to paste it)", run: cmdActionsAdd},
			{name: "list", summary: "list an assistant's actions, their operations and confirmation rules", run: cmdActionsList},
			{name: "test", summary: "call one operation, as the GPT editor's Test button does", run: cmdActionsTest},
			{name: "key", summary: "give an action what it waits for: its API key or its OAuth client", run: cmdActionsKey},
			{name: "signin", summary: "sign in to an OAuth action through your browser", run: cmdActionsSignIn},
			{name: "allow-local", summary: "let an action call this machine and its networks (or --off to take it back)", run: cmdActionsAllowLocal},
			{name: "rm", summary: "remove an action and its credentials", run: cmdActionsRm},
		}},
		{name: "knowledge", summary: "an assistant's knowledge files, indexed for its file_search", subs: []command{
			{name: "add", summary: "copy files into the assistant's knowledge and index them (read in the sandbox)", run: cmdKnowledgeAdd},
			{name: "list", summary: "list the assistant's knowledge files and their state", run: cmdKnowledgeList},
			{name: "search", summary: "search the assistant's knowledge as its file_search tool does", run: cmdKnowledgeSearch},
			{name: "rm", summary: "remove one file from the assistant's knowledge", run: cmdKnowledgeRm},
		}},
		{name: "library", summary: "the Kiwix libraries (.zim files) you carry for web browsing offline, and browsing's settings", subs: []command{
			{name: "add", summary: "register a .zim file you carried (its header and MD5 checked), served by kiwix-serve when asked", run: cmdLibraryAdd},
			{name: "list", summary: "list the carried libraries", run: cmdLibraryList},
			{name: "search", summary: "search the libraries' full-text indexes (and the web with --web) as web_search does", run: cmdLibrarySearch},
			{name: "open", summary: "open a zim://LIBRARY/PATH article (or a web page) and print its text, read in the sandbox", run: cmdLibraryOpen},
			{name: "rm", summary: "forget a library (rehome's copy deleted; your file never)", run: cmdLibraryRm},
			{name: "settings", summary: "browsing's settings: show, or set searxng=URL brave-key=KEY (from stdin: brave-key=-) lan=on|off air-gapped=on|off", run: cmdLibrarySettings},
		}},
		{name: "memory", summary: "what models were asked to remember", subs: []command{
			{name: "list", summary: "the saved memories, newest first (--search words, --assistant for one's own)", run: cmdMemoryList},
			{name: "add", summary: "save a memory", run: cmdMemoryAdd},
			{name: "edit", summary: "change a memory's text", run: cmdMemoryEdit},
			{name: "rm", summary: "delete memories by id", run: cmdMemoryRm},
			{name: "import", summary: "import the list ChatGPT shows under Settings → Personalization → Manage memories (a file, or - for stdin)", run: cmdMemoryImport},
			{name: "undo", summary: "take back what a chat's memory tool changed (the REF `rehome ask` prints)", run: cmdMemoryUndo},
			{name: "settings", summary: "show, or set, memory off/on and each assistant's choice (on, off, own)", run: cmdMemorySettings},
		}},
		{name: "mcp", summary: "MCP both ways: serve assistants to MCP clients; give assistants MCP servers' tools", subs: []command{
			{name: "serve", summary: "serve assistants to an MCP client (LM Studio, Jan, Claude Desktop, VS Code) over stdio or --http", run: cmdMCPServe},
			// It writes an MCP host's file naming this binary, and reads no data.
			{name: "config", summary: "print (or --write) the snippet that adds rehome to an MCP client's configuration", run: cmdMCPConfig, here: true},
			{name: "add", summary: "give an assistant an MCP server's tools: a command (stdio) or --url", run: cmdMCPAdd},
			{name: "list", summary: "list an assistant's MCP servers", run: cmdMCPList},
			{name: "test", summary: "connect to an assistant's MCP server and list its tools and their confirmation", run: cmdMCPTest},
			{name: "rm", summary: "remove an MCP server from an assistant", run: cmdMCPRm},
			{name: "on", summary: "offer an MCP server's tools to the assistant again", run: cmdMCPOn},
			{name: "off", summary: "keep an MCP server but offer its tools to the model no more", run: cmdMCPOff},
			{name: "import", summary: "add the servers of an MCP host's file (LM Studio, Claude Desktop, Jan, VS Code)", run: cmdMCPImport},
		}},
	}
}

// runCommands are the models and this machine, and what runs on them:
// asks, their conversations and canvases, runs and sessions.
func runCommands() []command {
	return []command{
		{name: "hw", summary: "detect CPU, RAM, GPUs and VRAM", run: cmdHW, here: true},
		// Alone (or with flags first) it lists the catalog.
		{name: "models", summary: "the catalog of open-weight models, and the GGUF files you carry", run: cmdModels, subs: []command{
			{name: "add", summary: "register a .gguf file you carried (its header checked, its SHA-256 kept)", run: cmdModelsAdd},
			{name: "local", summary: "list the carried models, with how each fits this machine", run: cmdModelsLocal},
			{name: "rm", summary: "forget a carried model (rehome's copy deleted; your file never)", run: cmdModelsRm},
			{name: "serve", summary: "run a carried model with llama-server in the foreground, for other clients", run: cmdModelsServe},
			{name: "settings", summary: "a model's saved temperature, context length and system prompt (what `rehome ask` and the window use)", run: cmdModelsSettings},
			{name: "pull", summary: "have the Ollama server on this machine pull a catalog model (rehome downloads nothing itself)", run: cmdModelsPull},
		}},
		{name: "fit", summary: "estimate which models fit this machine's memory", run: cmdFit, here: true},
		{name: "llm", summary: "the local model servers", subs: []command{
			{name: "status", summary: "the model servers on this machine, their models, and which call tools", run: cmdLLMStatus},
		}},
		{name: "ask", summary: "ask a question in words: a local model writes the code, the sandbox runs it", run: cmdAsk},
		{name: "canvas", summary: "a conversation's canvas, its textdocs", subs: []command{
			{name: "show", summary: "a conversation's textdocs with their versions (--json)", run: cmdCanvasShow},
			{name: "diff", summary: "what changed in a textdoc between two versions", run: cmdCanvasDiff},
			{name: "edit", summary: "replace a textdoc's text with a file's (or stdin's) — a new version", run: cmdCanvasEdit},
			{name: "restore", summary: "make an earlier version of a textdoc current", run: cmdCanvasRestore},
			{name: "export", summary: "write a conversation's textdocs into a folder (.md, .py, or --format ipynb)", run: cmdCanvasExport},
			{name: "run", summary: "run a code/python textdoc in the conversation's sandbox session", run: cmdCanvasRun},
		}},
		{name: "conversations", summary: "the kept conversations", subs: []command{
			{name: "list", summary: "the kept conversations, newest first", run: cmdConvList},
			{name: "search", summary: "the conversations that hold every word", run: cmdConvSearch},
			{name: "show", summary: "a conversation as Markdown, or as data with --json", run: cmdConvShow},
			{name: "export", summary: "a conversation as Markdown or a Jupyter notebook", run: cmdConvExport},
			{name: "rename", summary: "give a conversation a title", run: cmdConvRename},
			{name: "rm", summary: "delete a conversation", run: cmdConvRm},
			{name: "import", summary: "ChatGPT's data export: its .zip, conversations.json, or one conversation", run: cmdConvImport},
		}},
		{name: "run", summary: "run a Python script in the sandbox against a file", run: cmdRun},
		{name: "session", summary: "a Code Interpreter session that keeps its state", subs: []command{
			{name: "start", summary: "start a session on a file and print its id", run: cmdSessionStart},
			{name: "exec", summary: "run a cell in a session (state kept between cells)", run: cmdSessionExec},
			{name: "list", summary: "list the sessions and whether they run", run: cmdSessionList},
			{name: "interrupt", summary: "interrupt a session's running cell", run: cmdSessionInterrupt},
			{name: "restart", summary: "restart a session's kernel (variables are lost, files stay)", run: cmdSessionRestart},
			{name: "stop", summary: "stop a session (its cells stay for export)", run: cmdSessionStop},
			{name: "export", summary: "write a session's cells and outputs as .ipynb or .py", run: cmdSessionExport},
			// It serves its session on a socket of its own.
			{name: "relay", summary: "(started by start) hold a session for later commands", run: cmdSessionRelay, here: true},
		}},
	}
}

// systemCommands are rehome itself: the sandbox and its settings, serve,
// the checks, the help and the completion.
func systemCommands() []command {
	return []command{
		// Alone (or with flags first) it shows them.
		{name: "settings", summary: "show the sandbox's saved limits and Sandbox host", run: cmdSettings, subs: []command{
			{name: "set", summary: "save limits and the Sandbox host: KEY=VALUE…", run: cmdSettingsSet},
			{name: "reset", summary: "go back to the default limits", run: cmdSettingsReset},
		}},
		{name: "sandbox", summary: "the code sandbox", subs: []command{
			{name: "doctor", summary: "attack each guarantee of the sandbox and say which hold", run: cmdSandboxDoctor},
			{name: "image", summary: "the sandbox image", subs: []command{
				{name: "build", summary: "build the image from Debian packages (mmdebstrap; no registry)", run: cmdImageBuild},
				{name: "load", summary: "load an image archive (air-gapped machines)", run: cmdImageLoad},
				{name: "save", summary: "write the image as an archive to carry to another machine", run: cmdImageSave},
				{name: "status", summary: "say whether the image this rehome expects is ready", run: cmdImageStatus},
			}},
			{name: "clean", summary: "remove sandboxes left by a crashed rehome, and images and archives of old recipes", run: cmdSandboxClean},
			{name: "trust", summary: "trust a team host's SSH key: ssh://user@host/socket --fingerprint SHA256:…", run: cmdSandboxTrust},
		}},
		// serve becomes a holder itself: beside another one it says so.
		{name: "serve", summary: "serve the UI in a browser on this machine", run: cmdServe, here: true},
		{name: "doctor", summary: "check the installation and the database", run: cmdDoctor},
		{name: "backup", summary: "write a consistent copy of the database while rehome runs", run: cmdBackup},
		{name: "version", summary: "print the version", run: cmdVersion, here: true},
		{name: "completion", summary: "print a shell's completion script: bash, zsh or fish", run: cmdCompletion, bare: true},
		{name: "help", summary: "print the commands, or a command's help: help COMMAND…", run: cmdHelp, bare: true},
		// The manual page, for the package build.
		{name: "man", summary: "print the manual page rehome(1) in roff", run: cmdMan, bare: true, hidden: true},
		// What the completion scripts ask at completion time.
		{name: completeCommand, summary: "the completions of a command line's last word", run: cmdComplete, bare: true, hidden: true},
	}
}
