package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"rehome/backend/actions"
	"rehome/backend/assistant"
	"rehome/backend/llm"
	"rehome/backend/store"
)

// AirGapped says whether the assistant's latest audit was made for an
// air-gapped machine: then calls go to loopback and the LAN only. Not
// audited: online.
func (s *Actions) AirGapped(assistantID string) bool {
	if s.c.audits == nil {
		return false
	}
	rec, _, err := s.c.audits.Latest(assistantID)
	return err == nil && rec.Request.AirGapped
}

// Test calls operation of the assistant's actions with args (a JSON
// object), as the GPT editor's Test button does, under the same rules as
// the model's calls: confirm is asked where the operation's rule says.
func (s *Actions) Test(ctx context.Context, ref, operation, args string, confirm actions.Confirm) (actions.Result, error) {
	a, err := s.c.ResolveAssistant(ref)
	if err != nil {
		return actions.Result{}, err
	}
	for i, ac := range a.Actions {
		spec, err := actions.Parse(ac.Schema)
		if err != nil {
			continue
		}
		if op, err := spec.Operation(operation); err == nil {
			return s.call(ctx, a, named(ac, i), spec, op, args, confirm)
		}
	}
	var all []string
	for _, ac := range a.Actions {
		if spec, err := actions.Parse(ac.Schema); err == nil {
			all = append(all, spec.Names()...)
		}
	}
	if len(all) == 0 {
		return actions.Result{}, fmt.Errorf("%w %q: %s has no actions (add one with `rehome actions add`)", actions.ErrNoOperation, operation, a.Name)
	}
	return actions.Result{}, fmt.Errorf("%w %q: %s's operations are %s", actions.ErrNoOperation, operation, a.Name, strings.Join(all, ", "))
}

// call confirms where the rule says, then calls: under the action's
// allowance to reach local addresses (the stored one, read now), with
// every stored secret cut out of what comes back.
func (s *Actions) call(ctx context.Context, a assistant.Assistant, ac assistant.Action, spec *actions.Spec, op *actions.Operation, args string, confirm actions.Confirm) (actions.Result, error) {
	rule := op.Rule()
	confirmed := false
	if rule == actions.RuleEvery || (rule == actions.RuleAsk && !slices.Contains(ac.AlwaysAllow, op.ID)) {
		confirmed = true
		ask := spec.NewAsk(op, args)
		ask.Assistant, ask.Action = a.Name, ac.Name
		d := actions.Deny
		var err error
		if confirm != nil {
			d, err = confirm(ctx, ask)
		}
		if err != nil || d == actions.Deny || d == "" {
			why := "the user declined it"
			if confirm == nil {
				why = "nobody was there to confirm it (no terminal; --yes allows such calls)"
			} else if err != nil {
				why = err.Error()
			}
			return actions.Result{}, fmt.Errorf("%w: %s %s needs confirming and %s; it was not made", actions.ErrDeclined, op.Method, op.ID, why)
		}
		if d == actions.AllowAlways && ask.AlwaysOffered && ac.ID != "" {
			if _, err := s.c.assistants.Edit(a.ID, func(x *assistant.Assistant) error {
				for i := range x.Actions {
					if x.Actions[i].ID == ac.ID && !slices.Contains(x.Actions[i].AlwaysAllow, op.ID) {
						x.Actions[i].AlwaysAllow = append(x.Actions[i].AlwaysAllow, op.ID)
					}
				}
				return nil
			}); err != nil && !errors.Is(err, store.ErrNotFound) {
				return actions.Result{}, err
			}
		}
	}
	secrets, err := s.secrets.Values()
	if err != nil {
		return actions.Result{}, err
	}
	cl := &actions.Client{AirGapped: s.AirGapped(a.ID), AllowLocal: s.allowsLocal(a.ID, ac), Confirmed: confirmed, Redact: secrets}
	if au := authOf(ac); ac.ID != "" || au.Type != actions.AuthNone {
		// An action still waiting for its key or client is signed too:
		// the signer says, in words, what is missing.
		cl.Signer = au.Signer(s.secrets, secretKey(a.ID, ac.ID))
	}
	res, err := cl.Call(ctx, spec, op.ID, args)
	if err != nil {
		if more, verr := s.secrets.Values(); verr == nil {
			secrets = append(secrets, more...) // a token refreshed on the way
		}
		err = redactedError(err, secrets)
	}
	return res, err
}

// allowsLocal reads the action's allowance as stored now (a tool list
// made before the user changed it does not keep the old one).
func (s *Actions) allowsLocal(assistantID string, ac assistant.Action) bool {
	a, err := s.c.assistants.Get(assistantID)
	if err != nil {
		return false
	}
	for i, x := range a.Actions {
		if (ac.ID != "" && x.ID == ac.ID) || (ac.ID == "" && x.ID == "" && named(x, i).Name == ac.Name) {
			return x.AllowLocal
		}
	}
	return false
}

// secretFreeError is err with the stored secrets cut out of its words (a
// token endpoint's error page may quote what it was sent); errors.Is
// still sees err.
type secretFreeError struct {
	msg string
	err error
}

func (e *secretFreeError) Error() string { return e.msg }
func (e *secretFreeError) Unwrap() error { return e.err }

func redactedError(err error, secrets []string) error {
	msg := actions.Redact(err.Error(), secrets)
	if msg == err.Error() {
		return err
	}
	return &secretFreeError{msg: msg, err: err}
}

// Tools are the assistant's operations as tools of the ask loop, beside
// python and file_search. A call is made under the operation's rule:
// confirm decides the ones that need confirming (nil: they are declined,
// and the model is told). A schema that no longer parses is left out and
// said in notes.
func (s *Actions) Tools(ref string, confirm actions.Confirm) ([]llm.LoopTool, []string, error) {
	a, err := s.c.ResolveAssistant(ref)
	if err != nil {
		return nil, nil, err
	}
	var out []llm.LoopTool
	var notes []string
	seen := map[string]bool{llm.ToolName: true, "file_search": true}
	for i, ac := range a.Actions {
		ac := named(ac, i)
		spec, err := actions.Parse(ac.Schema)
		if err != nil {
			notes = append(notes, fmt.Sprintf("the action %s was left out: %v", ac.Name, err))
			continue
		}
		for _, op := range spec.Operations {
			if seen[op.ID] {
				notes = append(notes, fmt.Sprintf("the operation %s of %s was left out: another tool has that name", op.ID, ac.Name))
				continue
			}
			seen[op.ID] = true
			op := op
			out = append(out, llm.LoopTool{Name: op.ID, Description: toolDescription(spec, &op), Parameters: op.Parameters, Hints: actionHints(ac.Name, &op),
				Call: func(ctx context.Context, in llm.ToolInput) llm.ToolOutput {
					return fed(s.call(ctx, a, ac, spec, &op, in.Arguments, confirm))
				}})
		}
	}
	return out, notes, nil
}

// actionHints are the operation's MCP annotations by ChatGPT's rule: a
// call that needs no confirmation (a GET without x-openai-isConsequential)
// is read-only; one the user confirms every time is destructive; the
// others (x-openai-isConsequential: false) change something, undoably.
func actionHints(action string, op *actions.Operation) *llm.ToolHints {
	h := &llm.ToolHints{Title: op.ID + " (" + action + ")", OpenWorld: op.Method != ""}
	switch op.Rule() {
	case actions.RuleNone:
		h.ReadOnly = true
	case actions.RuleEvery:
		h.Destructive = true
	}
	return h
}

func toolDescription(spec *actions.Spec, op *actions.Operation) string {
	d := op.Description
	if d == "" {
		d = op.Method + " " + op.Path
	}
	if spec.SchemaOnly {
		return d
	}
	return d + " (an action: " + op.Method + " " + strings.Join(spec.Hosts(), ", ") + ")"
}

// fed is a call's outcome as the model reads it.
func fed(res actions.Result, err error) llm.ToolOutput {
	switch {
	case err == nil:
		return llm.ToolOutput{Text: res.Fed()}
	case errors.Is(err, actions.ErrDeclined):
		return llm.ToolOutput{Text: "(not called: " + err.Error() + ". Do not call it again unless the user asks; answer without it.)", Error: err.Error()}
	case errors.Is(err, actions.ErrRefused):
		return llm.ToolOutput{Text: "(not called: " + err.Error() + ")", Error: err.Error()}
	}
	return llm.ToolOutput{Text: "(the call failed: " + err.Error() + ")", Error: err.Error()}
}
