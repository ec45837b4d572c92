// Package llm talks to local model servers through the OpenAI-compatible
// API that Ollama, llama.cpp's llama-server, LM Studio, Jan and vLLM all
// serve (/v1/models and streaming /v1/chat/completions), finds them on
// this machine, and runs the ask-in-words loop: the model writes Python,
// an Executor runs it, the output goes back, until the model answers.
//
// Real servers differ from OpenAI's reference in many small ways; the
// client accepts each of them (see stream.go) rather than failing.
package llm
