package app

import (
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
// come back inline.
func (a *App) CanvasRun(conversationID, docID string) (*core.CanvasRun, error) {
	return a.core.Canvas().Run(a.ctx, core.CanvasRunRequest{ConversationID: conversationID, DocID: docID, InlinePlots: true})
}
