package mcphost

import "errors"

var (
	// ErrBadServer is a server description that cannot be used.
	ErrBadServer = errors.New("the MCP server is not usable")
	// ErrRefused is a call rehome did not make (declined, or refused).
	ErrRefused = errors.New("the MCP tool was not called")
)
