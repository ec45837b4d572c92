package mcpserve

import "errors"

var (
	// ErrNotLoopback is an --http address that is not on this machine.
	ErrNotLoopback = errors.New("the MCP server listens on this machine only")
	// ErrNoAssistant is a serve with no assistant to offer.
	ErrNoAssistant = errors.New("no assistant to serve")
	// errAsking ends a call's first round: the question goes to the client.
	errAsking = errors.New("waiting for your answer in the MCP client")
)
