// Package mcphost gives an assistant the tools of MCP servers the user
// names (stdio programs rehome starts, or Streamable HTTP endpoints),
// with the official Go SDK as the client: each server's tools become
// tools of the ask loop beside python, file_search and the actions,
// under ChatGPT's confirmation rule keyed on the tools' annotations, with
// a time bound per call and bounds on what comes back.
//
// A stdio server runs with a clean environment (none of rehome's or the
// user's variables but PATH, LANG and the ones the user named for it)
// in a folder of its own inside the data folder.
package mcphost
