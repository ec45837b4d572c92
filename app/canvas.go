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
func (svc *RunService) CanvasDocs(conversationID string) ([]*canvas.Doc, error) {
	a := svc.app
	return a.core.Canvas().Docs(conversationID)
}

// CanvasEdit replaces a textdoc's text as the user typed it (a version).
func (svc *RunService) CanvasEdit(conversationID, docID, content string) (*canvas.Doc, error) {
	a := svc.app
	return a.core.Canvas().Edit(conversationID, docID, content)
}

// CanvasRestore makes an earlier version of a textdoc current.
func (svc *RunService) CanvasRestore(conversationID, docID string, version int) (*canvas.Doc, error) {
	a := svc.app
	return a.core.Canvas().Restore(conversationID, docID, version)
}

// CanvasDiff is what changed in a textdoc from version from to version to.
func (svc *RunService) CanvasDiff(conversationID, docID string, from, to int) (string, error) {
	a := svc.app
	return a.core.Canvas().Diff(conversationID, docID, from, to)
}

// CanvasRun runs a code/python textdoc as the next cell of the
// conversation's sandbox session, the one its answers use; its plots
// come back inline. StopCanvasRun interrupts it: the result is what the
// cell did until then, marked interrupted.
func (svc *RunService) CanvasRun(conversationID, docID string) (*core.CanvasRun, error) {
	a := svc.app
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
func (svc *RunService) StopCanvasRun(conversationID string) error {
	if !svc.app.canvasRuns.stop(conversationID) {
		return errors.New("no canvas code runs in that conversation")
	}
	return nil
}
