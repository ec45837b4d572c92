// Package bridge is the browser face of `rehome serve`: an HTTP server
// that binds the same methods of app.App as the window (found by
// reflection), streams the App's events as Server-Sent Events, serves run
// outputs and takes uploads, on a bounded listener behind a token.
package bridge
