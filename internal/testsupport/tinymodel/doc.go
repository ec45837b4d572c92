// Package tinymodel writes a tiny llama-architecture GGUF model whose
// weights are set by hand, so that llama.cpp's real llama-server, given
// the `python` tool, answers like a tool-calling instruct model would:
// asked a question, it calls `python` with the script's code (streamed
// token by token, so the call arrives in fragments); once a tool result
// is in the prompt, it answers in words. It does so identically at any
// temperature: each step's logit margin is in the hundreds.
//
// How: the tokenizer is Qwen2's (the vocab-only GGUF that ships in the
// llama.cpp source) and the chat template Qwen2.5's (whose `<tool_call>`
// format llama-server parses). Every fragment the model says is one token
// (padding slots of the vocabulary become user-defined tokens), so the
// whole reply is a chain of distinct tokens and the next token is a table
// lookup: each fragment's embedding is a one-hot code and the output
// matrix maps it to the next fragment. The one choice that depends on
// more than the current token — call the tool, or answer — is made by one
// attention head that looks for a `<tool_response>` token anywhere in the
// prompt; it writes a ±1 flag into the residual stream that tips the
// first token. Everything else (the feed-forward networks, and the
// second layer of a one-call model) is zero.
//
// Taught named calls instead (Script.Calls: ActionScript calls the
// actions getOrder, then placeOrder, one a turn), it tells the turns
// apart with a second head, in the second layer, that looks for the
// second call's name fragment in the prompt (as the chat template
// renders a call already made): no tool result → the first call; a
// result but not the second call → the second; both → the answer. The
// fragments of Qwen2.5's call syntax are shared by both calls, and the
// two flags pick the next token where the chains part (the first token,
// the call's name).
//
// A one-call script may call only where its tool is offered
// (Script.IfOffered: MemoryScript, whose tool a temporary chat lacks):
// the second layer's head then looks for the chat template's listing of
// the tool (`"function": {"name": "memory"`, a user-defined token) and
// the first token is the call only with the listing there and no tool
// result yet (offered.go). llama-server holds a call to its tool grammar
// — the names offered, the arguments' keys in the schema's order — so a
// script's arguments follow the schema rehome sends.
//
// Test support only: under internal/testsupport so that a reader sees it
// is no part of rehome itself and nothing outside the module imports it.
package tinymodel
