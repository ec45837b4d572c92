package app

import (
	"context"
	"errors"

	"rehome/backend/canvas"
	"rehome/backend/core"
)

// The canvas pane beside a conversation: each method one call of
// core.Canvas.

// CanvasDocs returns a conversation's textdocs with their versions.
func (a *App) CanvasDocs(conversationID string) ([]*canvas.Doc, error) {
	return a.core.Canvas().Docs(conversationID)
}

// CanvasEdit replaces a textdoc's text as the user typed it (a version).
func (a *App) CanvasEdit(conversationID, docID, content string) (*canvas.Doc, error) {
	return a.core.Canvas().Edit(conversationID, docID, content)
}

// CanvasRestore makes an earlier version of a textdoc current.
func (a *App) CanvasRestore(conversationID, docID string, version int) (*canvas.Doc, error) {
	return a.core.Canvas().Restore(conversationID, docID, version)
}

// CanvasDiff is what changed in a textdoc from version from to version to.
func (a *App) CanvasDiff(conversationID, docID string, from, to int) (string, error) {
	return a.core.Canvas().Diff(conversationID, docID, from, to)
}

// CanvasRun runs a code/python textdoc as the next cell of the
// conversation's sandbox session, the one its answers use; its plots
// come back inline. StopCanvasRun interrupts it: the result is what the
// cell did until then, marked interrupted.
func (a *App) CanvasRun(conversationID, docID string) (*core.CanvasRun, error) {
	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	if !a.canvasRuns.begin(conversationID, cancel) {
		return nil, errors.New("this conversation's canvas is running: wait, or press Stop")
	}
	defer a.canvasRuns.end(conversationID)
	return a.core.Canvas().Run(ctx, core.CanvasRunRequest{ConversationID: conversationID, DocID: docID, InlinePlots: true})
}

// StopCanvasRun interrupts the canvas code running in a conversation's
// session (KeyboardInterrupt; the session and its variables stay).
func (a *App) StopCanvasRun(conversationID string) error {
	a.canvasRuns.mu.Lock()
	cancel := a.canvasRuns.cancels[conversationID]
	a.canvasRuns.mu.Unlock()
	if cancel == nil {
		return errors.New("no canvas code runs in that conversation")
	}
	cancel()
	return nil
}
