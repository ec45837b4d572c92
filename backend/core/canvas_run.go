package core

import (
	"context"
	"fmt"
	"strings"

	"rehome/backend/llm"
	"rehome/sandbox"
)

// CanvasRunRequest runs a code textdoc (core.Canvas.Run).
type CanvasRunRequest struct {
	ConversationID string
	// DocID is the textdoc ("" the conversation's current one).
	DocID string
	// InlinePlots keeps plots' data: URLs in the result (the window).
	InlinePlots bool
}

// CanvasRun is what a code textdoc's run did: the cell, in the
// conversation's sandbox session.
type CanvasRun struct {
	Doc     string         `json:"doc"`     // the textdoc's id
	Name    string         `json:"name"`    // its name
	Version int            `json:"version"` // the version that ran
	Result  llm.CellResult `json:"result"`
}

// Run runs a code/python textdoc as the next cell of the conversation's
// sandbox session — the one its answers' python calls run in, started
// with its files at /mnt/data under the saved limits — so what the code
// defines is there for the model's next cell, and what the model's cells
// defined is there for the code (as ChatGPT's canvas runs its code
// beside the chat). ctx interrupts the cell.
func (cv *Canvas) Run(ctx context.Context, req CanvasRunRequest) (*CanvasRun, error) {
	asks := cv.c.askSvc
	if asks.busy(req.ConversationID) {
		return nil, fmt.Errorf("the conversation is answering: run the canvas once the answer is done")
	}
	conv, d, err := cv.find(req.ConversationID, req.DocID)
	if err != nil {
		return nil, err
	}
	if !runsInSession(d.Type) {
		return nil, fmt.Errorf("%w: %q is %s; export it to run it elsewhere (`rehome canvas export %s`)", ErrCanvasNotPython, d.Name, d.Type, conv.ID)
	}
	if strings.TrimSpace(d.Content) == "" {
		return nil, fmt.Errorf("the textdoc %q is empty: nothing to run", d.Name)
	}
	lim, e, err := cv.c.sessionEngine(ctx, sandbox.Limits{})
	if err != nil {
		return nil, err
	}
	ex, _ := asks.session(conv, e, lim, AskRequest{InlinePlots: req.InlinePlots})
	res, err := ex.Exec(ctx, d.Content)
	if err != nil {
		return nil, err
	}
	cv.c.log.Info("canvas run", "conversation", conv.ID, "doc", d.ID, "session", res.SessionID, "cell", res.Cell, "exit", res.ExitCode)
	return &CanvasRun{Doc: d.ID, Name: d.Name, Version: d.Versions[len(d.Versions)-1].N, Result: res}, nil
}

// runsInSession says whether a textdoc of type typ runs in the Python
// session: code/python (and code/py, as a model may write it).
func runsInSession(typ string) bool {
	switch strings.ToLower(strings.TrimSpace(typ)) {
	case "code/python", "code/py", "code/python3":
		return true
	}
	return false
}

// busy says whether conversationID's question runs now.
func (s *Asks) busy(conversationID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answering[conversationID]
}
