// Command tinymodel writes the tests' tiny tool-calling model (package
// tinymodel) as a GGUF file, for running llama-server with it by hand or
// from a test written in another language:
//
//	go run ./internal/testsupport/tinymodel/cmd/tinymodel -o tiny.gguf
//	llama-server -m tiny.gguf --jinja
//
// -src is the folder with the Qwen2 vocabulary and the Qwen2.5 template:
// the one beside the llama-server that build/llm/llama-server.sh built
// (the default), or a llama.cpp checkout.
package main
