package actions

import (
	"context"
	"net/url"
)

// Rule says when a call of an operation waits for the user, by ChatGPT's
// rule on x-openai-isConsequential.
type Rule string

// The rules.
const (
	// RuleNone: no confirmation (a GET without the flag).
	RuleNone Rule = "none"
	// RuleAsk: the user confirms, and may choose "Always allow"
	// (x-openai-isConsequential: false).
	RuleAsk Rule = "ask"
	// RuleEvery: the user confirms every call, with no "Always allow"
	// (x-openai-isConsequential: true, or another method than GET without
	// the flag).
	RuleEvery Rule = "every"
)

// Rule is the operation's confirmation rule. A function tool's (no
// method: nothing is ever called) is RuleNone, so that nobody is asked
// to allow a call that cannot be made.
func (o *Operation) Rule() Rule {
	switch {
	case o.Method == "":
		return RuleNone
	case o.Consequential != nil && *o.Consequential:
		return RuleEvery
	case o.Consequential != nil:
		return RuleAsk
	case o.Method == "GET":
		return RuleNone
	}
	return RuleEvery
}

// Decision is the user's answer to a confirmation.
type Decision string

// The answers.
const (
	AllowOnce   Decision = "allow"
	AllowAlways Decision = "always"
	Deny        Decision = "deny"
)

// Ask is what the user is asked to confirm: the operation, the host and
// the arguments.
type Ask struct {
	Assistant string `json:"assistant"`
	Action    string `json:"action"`
	Operation string `json:"operation"`
	Method    string `json:"method"`
	Host      string `json:"host"`
	Arguments string `json:"arguments"`
	// AlwaysOffered: "Always allow" may be chosen (RuleAsk).
	AlwaysOffered bool `json:"always_offered"`
}

// Confirm asks the user; an error or a Deny declines the call. A face
// supplies it: a terminal prompt, the window's dialog, --yes.
type Confirm func(ctx context.Context, a Ask) (Decision, error)

// NewAsk is the question for a call of op with args.
func (s *Spec) NewAsk(op *Operation, args string) Ask {
	a := Ask{Operation: op.ID, Method: op.Method, Arguments: args, AlwaysOffered: op.Rule() == RuleAsk}
	if len(s.Servers) > 0 {
		if u, err := url.Parse(s.Servers[0]); err == nil {
			a.Host = u.Host
		}
	}
	return a
}
