package core

import (
	"context"
	"fmt"
	"strings"

	"rehome/backend/llm"
	"rehome/sandbox"
)

// BlockRunRequest runs a ```python block an answer wrote instead of
// calling the python tool (Asks.RunBlock): the user clicked Run on it.
type BlockRunRequest struct {
	ConversationID string
	// Exchange is the answer's index in the conversation (0: the first).
	Exchange int
	// Code is the block's text, as the screen shows it: it must be one
	// of the answer's python blocks.
	Code string
	// InlinePlots keeps plots' data: URLs in the result (the window).
	InlinePlots bool
}

// BlockRun is what a clicked block did, in the conversation's session.
type BlockRun struct {
	Code   string         `json:"code"`
	Result llm.CellResult `json:"result"`
}

// RunBlock runs one ```python block of an answer as the next cell of the
// conversation's sandbox session — the one its python tool calls run in,
// with its files at /mnt/data, under the saved limits — because the user
// asked (the click is the consent; nothing runs otherwise). Only a block
// the answer holds runs: other code is refused with ErrNotInAnswer.
func (s *Asks) RunBlock(ctx context.Context, req BlockRunRequest) (*BlockRun, error) {
	if err := s.c.Ready(); err != nil {
		return nil, err
	}
	if s.busy(req.ConversationID) {
		return nil, fmt.Errorf("the conversation is answering: run the block once the answer is done")
	}
	conv, err := llm.GetConversation(s.c.Store(), req.ConversationID)
	if err != nil {
		return nil, err
	}
	if req.Exchange < 0 || req.Exchange >= len(conv.Exchanges) {
		return nil, fmt.Errorf("%w: the conversation has %d answers, not %d", ErrNotInAnswer, len(conv.Exchanges), req.Exchange+1)
	}
	code, ok := answerBlock(conv.Exchanges[req.Exchange], req.Code)
	if !ok {
		return nil, ErrNotInAnswer
	}
	lim, e, err := s.c.sessionEngine(ctx, sandbox.Limits{})
	if err != nil {
		return nil, err
	}
	ex, _ := s.session(conv, e, lim, AskRequest{InlinePlots: req.InlinePlots})
	res, err := ex.Exec(ctx, code)
	if err != nil {
		return nil, err
	}
	s.c.log.Info("answer block run", "conversation", conv.ID, "exchange", req.Exchange, "session", res.SessionID, "exit", res.ExitCode)
	return &BlockRun{Code: code, Result: res}, nil
}

// answerBlock is the python block of t's answer (or of its turns' text)
// that is code, compared without the white space around it.
func answerBlock(t llm.Transcript, code string) (string, bool) {
	want := strings.TrimSpace(code)
	if want == "" {
		return "", false
	}
	texts := []string{t.Answer}
	for _, tu := range t.Turns {
		texts = append(texts, tu.Text)
	}
	for _, text := range texts {
		for _, b := range llm.PythonBlocks(text) {
			if strings.TrimSpace(b) == want {
				return b, true
			}
		}
	}
	return "", false
}
