package app

import (
	"errors"

	"rehome/backend/core"
)

// uiHints say how the window gives what a domain error names as missing:
// its fields and screens (the CLI names its flags; see app/cli/hints.go).
var uiHints = core.Hints{
	VRAMAndRAM: ": tick “Plan a purchase” and enter the VRAM and RAM in GiB",
	RAM:        ": tick “Plan a purchase” and enter the RAM in GiB",
	VRAM:       ": enter it in the VRAM field, in GiB (0 for no GPU)",
	Knowledge:  " on the Assistants screen, then export again",
	ModelName:  ": type its Ollama name, or a GGUF file's path, in “Local model”",
	Model:      ": type it in “Local model” (the Hardware screen says which ones fit)",
	Server:     " Or type a server's URL in the Ask screen's server field",
	Audit:      ": audit it on the Audit screen first",
}

// uiError says a domain error in the UI's words.
func uiError(err error) error { return uiHints.Explain(err) }

// errNoWindow is what a dialog call answers in a browser.
var errNoWindow = errors.New("file dialogs exist only in the rehome window: in a browser, drop the file on the page or use its Choose file button")

// errNoClipboard is what PasteImage answers where no window reads the
// clipboard: a browser's page uploads the pasted image itself.
var errNoClipboard = errors.New("reading the clipboard exists only in the rehome window: in a browser, paste the image into the page (it is uploaded) or drop its file")

// ErrHostNeedsWindow is returned when a face that cannot ask the user in a
// dialog of its own (the browser bridge) tries to send the user's files to
// another Sandbox host: a page, or whatever holds its token, cannot
// confirm that.
var ErrHostNeedsWindow = errors.New("the Sandbox host decides where your files go, so a browser page cannot change it: change it in the rehome window (which asks you in a dialog of its own) or in a terminal on this machine with `rehome settings set sandbox_host=ssh://…`; going back to this machine works from here")

// ErrHostNotConfirmed is returned when the user said No in the window's
// own dialog about a new Sandbox host.
var ErrHostNotConfirmed = errors.New("the Sandbox host was not changed: you did not confirm it in the window's dialog")

// ErrNoMethod is Calls' answer for a name the App has no method of.
var ErrNoMethod = errors.New("rehome has no method")

// ErrBadArguments is Calls' answer for arguments that do not decode into
// the method's parameters.
var ErrBadArguments = errors.New("bad arguments")

// ErrMCPCommandNeedsWindow is returned when a browser page tries to add
// an MCP server that runs a program on this machine: a page, or whatever
// holds the bridge's token, cannot confirm that.
var ErrMCPCommandNeedsWindow = errors.New("an MCP server that runs a program on this computer cannot be added from a browser page: add it in the rehome window (which asks you in a dialog of its own), or in a terminal with `rehome mcp add ASSISTANT NAME -- COMMAND ARGS…`; a server at a URL can be added here")

// ErrMCPNotConfirmed is returned when the user said No in the window's own
// dialog about running an MCP server's program.
var ErrMCPNotConfirmed = errors.New("the MCP server was not added: you did not confirm it in the window's dialog")
