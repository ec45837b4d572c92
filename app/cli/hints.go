package cli

import "rehome/backend/core"

// cliHints say how the terminal gives what a domain error names as
// missing: its flags (the window names its fields; see app/errors.go).
var cliHints = core.Hints{
	VRAMAndRAM: ": give --vram and --ram, such as --vram 24GiB --ram 64GiB",
	RAM:        ": give it with --ram, such as --ram 64GiB",
	VRAM:       " (give it with --vram, such as --vram 8GiB, or 0 for no GPU)",
	Knowledge:  ", or export with --allow-missing to leave it out",
	ModelName:  ": give the Ollama name or a GGUF file's path with --model",
	Model:      ": give it with --model (`rehome fit` says which ones fit)",
	Server:     " Or name one with --server URL",
	Audit:      ": run `rehome audit --assistant %s` first",
}

// cliError says a domain error in the terminal's words.
func cliError(err error) error { return cliHints.Explain(err) }
