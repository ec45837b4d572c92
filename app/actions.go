package app

import (
	"context"
	"fmt"
	"sync"
	"time"

	"rehome/backend/actions"
	"rehome/backend/core"
)

// ActionConfirm is the "action:confirm" event: a call that waits for the
// user. The window shows a dialog naming the operation, the host and the
// arguments (Allow once / Always allow where offered / Deny) and answers
// with AnswerAction(ID, …).
type ActionConfirm struct {
	ID  string      `json:"id"`
	Ask actions.Ask `json:"ask"`
}

// confirmWait is how long a call waits for the dialog's answer before it
// is declined.
const confirmWait = 2 * time.Minute

// confirmBox holds the calls waiting for the user, by id.
type confirmBox struct {
	mu      sync.Mutex
	waiting map[string]chan actions.Decision
}

// ListActions lists an assistant's actions and their operations (never
// their keys: only whether there is one).
func (svc *ActionService) ListActions(assistantID string) ([]core.ActionInfo, error) {
	return onStore(svc.app, func(c *core.Core) ([]core.ActionInfo, error) {
		list, err := c.Actions().List(assistantID)
		return list, uiError(err)
	})
}

// AddAction adds an action from its schema text; the key goes to the
// data folder's owner-only file only.
func (svc *ActionService) AddAction(assistantID string, in core.AddAction) (_ core.ActionInfo, err error) {
	a := svc.app
	defer a.guard("AddAction", &err)
	if err := a.ready(); err != nil {
		return core.ActionInfo{}, err
	}
	info, err := a.core.Actions().Add(assistantID, in)
	if err != nil {
		return core.ActionInfo{}, uiError(err)
	}
	a.log.Info("action added", "assistant", assistantID, "action", info.Name, "operations", len(info.Operations), "auth", info.Auth)
	return info, nil
}

// SetActionAllowLocal gives or takes back an action's allowance to call
// this machine and its networks (the editor's "May call local addresses"
// box); an import never brings it.
func (svc *ActionService) SetActionAllowLocal(assistantID, name string, allow bool) (core.ActionInfo, error) {
	return onStore(svc.app, func(c *core.Core) (core.ActionInfo, error) {
		info, err := c.Actions().SetAllowLocal(assistantID, name, allow)
		return info, uiError(err)
	})
}

// RemoveAction removes an action and its credentials.
func (svc *ActionService) RemoveAction(assistantID, name string) error {
	return doOnStore(svc.app, func(c *core.Core) error { return uiError(c.Actions().Remove(assistantID, name)) })
}

// TestAction calls one operation, as the GPT editor's Test button does;
// a call that needs confirming waits for the window's dialog.
func (svc *ActionService) TestAction(assistantID, operation, args string) (actions.Result, error) {
	a := svc.app
	return onStore(a, func(c *core.Core) (actions.Result, error) {
		res, err := c.Actions().Test(a.ctx, assistantID, operation, args, a.confirmAction)
		return res, uiError(err)
	})
}

// ActionSignIn is the "action:signin" event: the address of an OAuth
// action's sign-in page, for the UI to open in the user's browser.
type ActionSignIn struct {
	Assistant string `json:"assistant"`
	Action    string `json:"action"`
	URL       string `json:"url"`
}

// signInWait bounds a sign-in: the user has that long to sign in.
const signInWait = 5 * time.Minute

// SignInAction runs an OAuth action's sign-in (authorization code with
// PKCE through a loopback redirect): the "action:signin" event carries
// the provider's address, which the UI opens; it returns once the
// provider has sent the user back to rehome and the tokens are kept (in
// the owner-only file, never in an answer), or after five minutes.
func (svc *ActionService) SignInAction(assistantID, name string) error {
	a := svc.app
	if err := a.ready(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(a.ctx, signInWait)
	defer cancel()
	err := a.core.Actions().SignIn(ctx, assistantID, name, func(url string) error {
		a.emit("action:signin", ActionSignIn{Assistant: assistantID, Action: name, URL: url})
		return nil
	})
	if err != nil {
		return uiError(err)
	}
	a.log.Info("action signed in", "assistant", assistantID, "action", name)
	return nil
}

// AnswerAction answers the dialog of call id: "allow", "always" or
// "deny".
func (svc *ActionService) AnswerAction(id string, decision actions.Decision) error {
	a := svc.app
	switch decision {
	case actions.AllowOnce, actions.AllowAlways, actions.Deny:
	default:
		return fmt.Errorf("answer %q: use allow, always or deny", decision)
	}
	a.confirms.mu.Lock()
	ch, ok := a.confirms.waiting[id]
	delete(a.confirms.waiting, id)
	a.confirms.mu.Unlock()
	if !ok {
		return fmt.Errorf("the call %s is no longer waiting (answered, or declined after %s)", id, confirmWait)
	}
	ch <- decision
	return nil
}

// confirmAction asks the window and waits for AnswerAction; no answer
// within confirmWait, or the App closing, declines.
func (a *App) confirmAction(ctx context.Context, ask actions.Ask) (actions.Decision, error) {
	id := core.NewID()
	ch := make(chan actions.Decision, 1)
	a.confirms.mu.Lock()
	if a.confirms.waiting == nil {
		a.confirms.waiting = map[string]chan actions.Decision{}
	}
	a.confirms.waiting[id] = ch
	a.confirms.mu.Unlock()
	defer func() {
		a.confirms.mu.Lock()
		delete(a.confirms.waiting, id)
		a.confirms.mu.Unlock()
	}()
	a.emit("action:confirm", ActionConfirm{ID: id, Ask: ask})
	t := time.NewTimer(confirmWait)
	defer t.Stop()
	select {
	case d := <-ch:
		return d, nil
	case <-t.C:
		return actions.Deny, fmt.Errorf("nobody answered the confirmation within %s", confirmWait)
	case <-ctx.Done():
		return actions.Deny, ctx.Err()
	}
}
