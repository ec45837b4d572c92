// Package actions hosts a custom GPT's actions: the OpenAPI schema pasted
// in the GPT editor is parsed and checked (kin-openapi, OpenAPI 3.0 and
// 3.1, JSON or YAML), each operation becomes a tool the local model may
// call, and the call is made from this machine under ChatGPT's rules —
// only to the schema's servers, no redirect elsewhere, path parameters
// escaped, 45 s, request and response under 100,000 characters, the
// user asked before a consequential call — with the credentials kept in
// an owner-only file in the data folder, never in the assistant's record.
//
// Parse reads a schema; Spec.Tools lists its tools; Client.Call makes one
// call; Secrets keeps the credentials; Rule says when a call is
// confirmed.
package actions
