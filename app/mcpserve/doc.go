// Package mcpserve serves rehome's assistants to MCP clients (LM Studio,
// Jan, Claude Desktop, VS Code, the MCP Inspector) with the official Go
// SDK of the Model Context Protocol: each assistant's file_search (the
// passages with their citations as resource links), its actions (with
// MCP tool annotations that follow ChatGPT's confirmation rule), a
// python tool backed by a sandbox session per MCP session, its
// instructions and starters as a prompt and its knowledge files as
// resources. It translates; what the tools do is backend/core's (the same
// tools the ask loop gives a model).
//
// Over stdio (what desktop MCP hosts start) and over Streamable HTTP on
// loopback, behind a bearer token and the SDK's own DNS-rebinding check
// of Host and Origin.
package mcpserve
