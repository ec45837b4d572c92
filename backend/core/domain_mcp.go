package core

import (
	"rehome/backend/llm"
	"rehome/backend/llm/sandboxexec"
)

// What the MCP server of `rehome mcp serve` (app/mcpserve, a face) takes
// and gives of the model loop's, named by core as domain.go names the rest.
type (
	// Citation is a passage of knowledge an answer cites.
	Citation = llm.Citation
	// LoopTool is a tool an answer may call (file_search, an action, an
	// MCP server's tool).
	LoopTool = llm.LoopTool
	// ToolInput is a tool call's arguments.
	ToolInput = llm.ToolInput
	// PythonSession is a conversation's Python: the session its cells run
	// in, started at the first.
	PythonSession = sandboxexec.Session
)
