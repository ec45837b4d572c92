// Command ollamacheck parses a Modelfile from stdin with Ollama's own
// parser (github.com/ollama/ollama/parser) and prints what Ollama reads
// from it as JSON. rehome's export tests run it to check that their
// Modelfiles mean to Ollama what rehome meant. It is a module of its own so
// the main module does not depend on Ollama.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/ollama/ollama/parser"
)

func main() {
	f, err := parser.ParseFile(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "parse:", err)
		os.Exit(1)
	}
	req, err := f.CreateRequest("")
	if err != nil {
		fmt.Fprintln(os.Stderr, "create request:", err)
		os.Exit(1)
	}
	out := map[string]any{
		"from":       req.From,
		"system":     req.System,
		"parameters": req.Parameters,
		"messages":   req.Messages,
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
