package sandbox

import "rehome/sandbox/link"

// connection is the engine's current connection.
func (e *Engine) connection() *link.Connection {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.conn
}

// Lost is a *link.ConnectionLostError once the engine's link to its team host
// dropped, else nil: the engine must then be closed and started again.
func (e *Engine) Lost() error { return e.connection().Lost() }

// remote reports whether the engine's service is a team host's (ssh://).
func (e *Engine) remote() bool { return e.connection().Remote }

// TeamHost is the engine's team host as the user names it
// (user@host[:port]), "" for a local service.
func (e *Engine) TeamHost() string { return e.connection().Host() }
