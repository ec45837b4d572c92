package core

import (
	"strings"
	"time"

	"rehome/backend/canvas"
	"rehome/backend/llm"
)

// ConversationView is a conversation as data, as `rehome conversations
// show --json` and the bridge give it: turns with their role and text,
// the cells the assistant ran, its sources, its assistant and gizmo id,
// and its canvas with every version.
type ConversationView struct {
	ID            string         `json:"id"`
	Title         string         `json:"title"`
	AssistantID   string         `json:"assistant_id,omitempty"`
	AssistantName string         `json:"assistant_name,omitempty"`
	GizmoID       string         `json:"gizmo_id,omitempty"`
	Source        string         `json:"source,omitempty"`
	SourceID      string         `json:"source_id,omitempty"`
	Model         string         `json:"model"`
	Server        string         `json:"server"`
	Created       time.Time      `json:"created"`
	Updated       time.Time      `json:"updated"`
	Files         []llm.FileInfo `json:"files"`
	Turns         []ViewTurn     `json:"turns"`
	// Alternatives are the other branches (an imported conversation's
	// edits and regenerations): From is the index in Turns where each
	// stands beside the main one.
	Alternatives []ViewBranch `json:"alternatives,omitempty"`
	Notes        []string     `json:"notes,omitempty"`
	// Canvas is the textdocs beside the chat, each with its versions (who
	// made each: the model, the user, a restore) and comments.
	Canvas []*canvas.Doc `json:"canvas,omitempty"`
	// Temporary: a chat that read and saved no memory.
	Temporary bool `json:"temporary,omitempty"`
}

// ViewTurn is one turn: the user's question or the assistant's answer.
type ViewTurn struct {
	Role      string         `json:"role"`
	Text      string         `json:"text"`
	Reasoning string         `json:"reasoning,omitempty"`
	Cells     []ViewCell     `json:"cells,omitempty"`
	Tools     []ViewTool     `json:"tools,omitempty"`
	Citations []llm.Citation `json:"citations,omitempty"`
	Files     []llm.OutFile  `json:"files,omitempty"`
	Model     string         `json:"model,omitempty"`
	Time      *time.Time     `json:"time,omitempty"`
}

// ViewCell is code the assistant ran and what it gave.
type ViewCell struct {
	Code     string        `json:"code"`
	Output   string        `json:"output"`
	Error    string        `json:"error,omitempty"`
	ExitCode int           `json:"exit_code"`
	Files    []llm.OutFile `json:"files,omitempty"`
}

// ViewTool is a call of another tool (browsing, an action).
type ViewTool struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments,omitempty"`
	Result    string `json:"result,omitempty"`
}

// ViewBranch is another branch of the conversation.
type ViewBranch struct {
	From  int        `json:"from"`
	Turns []ViewTurn `json:"turns"`
}

// View returns a conversation as data (see ConversationView).
func (s *Conversations) View(ref string) (*ConversationView, error) {
	c, err := s.Get(ref)
	if err != nil {
		return nil, err
	}
	v := &ConversationView{ID: c.ID, Title: c.Title, AssistantID: c.AssistantID, AssistantName: c.AssistantName, GizmoID: c.GizmoID,
		Source: c.Source, SourceID: c.SourceID, Model: c.Model, Server: c.Server, Created: c.Created, Updated: c.Updated,
		Files: c.Files, Turns: viewTurns(c.Exchanges), Notes: c.Notes, Canvas: c.Canvas, Temporary: c.Temporary}
	for _, a := range c.Alternatives {
		v.Alternatives = append(v.Alternatives, ViewBranch{From: len(viewTurns(c.Exchanges[:min(a.From, len(c.Exchanges))])), Turns: viewTurns(a.Exchanges)})
	}
	return v, nil
}

// viewTurns writes each exchange as the user's turn and the assistant's.
func viewTurns(xs []llm.Transcript) []ViewTurn {
	out := []ViewTurn{}
	for _, x := range xs {
		u := ViewTurn{Role: "user", Text: x.Question, Files: x.Attachments}
		if !x.Started.IsZero() {
			t := x.Started
			u.Time = &t
		}
		a := ViewTurn{Role: "assistant", Text: x.Answer, Citations: x.Citations, Files: x.Files, Model: x.Model}
		var why []string
		for _, tu := range x.Turns {
			if tu.Reasoning != "" {
				why = append(why, tu.Reasoning)
			}
			for _, c := range tu.Cells {
				a.Cells = append(a.Cells, ViewCell{Code: c.Code, Output: c.Result.Stdout + c.Result.Stderr, Error: c.Error,
					ExitCode: c.Result.ExitCode, Files: c.Result.Files})
			}
			for _, t := range tu.Tools {
				a.Tools = append(a.Tools, ViewTool{Name: t.Name, Arguments: t.Arguments, Result: t.Fed})
			}
		}
		a.Reasoning = strings.Join(why, "\n\n")
		if x.Question != "" || len(x.Attachments) > 0 {
			out = append(out, u)
		}
		out = append(out, a)
	}
	return out
}
