package core

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/oauth2"

	"rehome/backend/actions"
	"rehome/backend/assistant"
	"rehome/backend/store"
)

// Actions is the service for an assistant's actions: the schemas kept
// with the assistant, the credentials in the data folder's owner-only
// file, the calls made from this machine. Every face (the CLI, the
// window, the bridge) calls this one.
type Actions struct {
	c       *Core
	secrets *actions.Secrets
}

// Actions is the actions service (its methods need an open Core). One
// per Core, so that its writes of the credentials file are serialized.
func (c *Core) Actions() *Actions {
	c.actOnce.Do(func() { c.act = &Actions{c: c, secrets: actions.NewSecrets(c.dir)} })
	return c.act
}

// ActionInfo is one action as the faces list it: never its credentials,
// only whether they are there.
type ActionInfo struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Title      string          `json:"title"`
	Servers    []string        `json:"servers"`
	Auth       string          `json:"auth"` // none, basic, bearer, header:NAME, oauth
	SchemaOnly bool            `json:"schema_only,omitempty"`
	HasKey     bool            `json:"has_key"`
	SignedIn   bool            `json:"signed_in"`
	Operations []OperationInfo `json:"operations"`
	// AllowLocal: the user allowed the action to reach this machine and
	// its networks (loopback, private, link-local, CGNAT, unique-local,
	// metadata addresses); without it such calls are refused.
	AllowLocal bool `json:"allow_local"`
	// Local names the first server that is plainly on this machine or its
	// network (an address of a local kind, or localhost): its calls need
	// AllowLocal. A name that resolves there is found at the call.
	Local string `json:"local,omitempty"`
	// Problem says why the stored schema no longer parses.
	Problem string `json:"problem,omitempty"`
	// Waiting says what a call still needs ("its API key", "its OAuth
	// client …", "a sign-in"); "" when it can be made.
	Waiting string `json:"waiting,omitempty"`
	// Notes say what of the schema was read differently from its text,
	// as ChatGPT reads it (an operationId with spaces, no responses …).
	Notes []string `json:"notes,omitempty"`
}

// OperationInfo is one operation and its confirmation rule.
type OperationInfo struct {
	ID          string       `json:"id"`
	Method      string       `json:"method"`
	Path        string       `json:"path"`
	Description string       `json:"description"`
	Rule        actions.Rule `json:"rule"`
	AlwaysAllow bool         `json:"always_allow,omitempty"`
}

// AddAction is what adding an action takes. Key and ClientSecret go to
// the credentials file, nowhere else.
type AddAction struct {
	Schema string `json:"schema"`
	// Auth is none, basic, bearer, header:NAME or oauth; "" takes the
	// auth the schema's securitySchemes declare, and the action is added
	// waiting for what is missing (its key, its OAuth client).
	Auth         string                 `json:"auth"`
	Key          string                 `json:"key,omitempty"`
	OAuth        *assistant.OAuthClient `json:"oauth,omitempty"`
	ClientSecret string                 `json:"client_secret,omitempty"`
	PrivacyURL   string                 `json:"privacy_url,omitempty"`
	// Name, when set, names the action; else its schema's title.
	Name string `json:"name,omitempty"`
	// AllowLocal lets its calls reach this machine and its networks
	// (`--allow-local`, the editor's "May call local addresses" box).
	AllowLocal bool `json:"allow_local,omitempty"`
}

// Add checks the schema and the auth, keeps the action with the
// assistant (one transaction) and its credentials in the owner-only
// file.
func (s *Actions) Add(ref string, in AddAction) (ActionInfo, error) {
	as, err := s.c.ResolveAssistant(ref)
	if err != nil {
		return ActionInfo{}, err
	}
	assistantID := as.ID
	spec, err := actions.Parse(in.Schema)
	if err != nil {
		return ActionInfo{}, err
	}
	au, err := addAuth(spec, in)
	if err != nil {
		return ActionInfo{}, err
	}
	if spec.SchemaOnly && au.Type != actions.AuthNone {
		return ActionInfo{}, errors.New("a function tool has no server to sign calls to: add it with --auth none")
	}
	ac := assistant.Action{Schema: in.Schema, PrivacyURL: in.PrivacyURL, ID: store.NewID(), AllowLocal: in.AllowLocal}
	setAuth(&ac, au)
	var stored assistant.Action
	_, err = s.c.assistants.Edit(assistantID, func(a *assistant.Assistant) error {
		name := slug(in.Name)
		if name == "" {
			name = slug(spec.Title)
		}
		if name == "" {
			name = "action"
		}
		ac.Name = unique(name, a.Actions)
		a.Actions = append(a.Actions, ac)
		stored = ac
		return nil
	})
	if err != nil {
		return ActionInfo{}, err
	}
	if au.NeedsKey() || in.ClientSecret != "" {
		if err := s.secrets.Update(secretKey(assistantID, stored.ID), func(x *actions.Secret) {
			x.Key, x.ClientSecret = strings.TrimSpace(in.Key), in.ClientSecret
		}); err != nil {
			return ActionInfo{}, err
		}
	}
	return s.info(assistantID, stored), nil
}

// List returns the assistant's actions, each with its operations.
func (s *Actions) List(ref string) ([]ActionInfo, error) {
	a, err := s.c.ResolveAssistant(ref)
	if err != nil {
		return nil, err
	}
	out := []ActionInfo{}
	for i, ac := range a.Actions {
		out = append(out, s.info(a.ID, named(ac, i)))
	}
	return out, nil
}

// Remove drops the action name (or id) and its credentials.
func (s *Actions) Remove(ref, name string) error {
	as, err := s.c.ResolveAssistant(ref)
	if err != nil {
		return err
	}
	assistantID := as.ID
	var gone assistant.Action
	_, err = s.c.assistants.Edit(assistantID, func(a *assistant.Assistant) error {
		i := find(a.Actions, name)
		if i < 0 {
			return fmt.Errorf("%w %q: the assistant has %s", ErrNoAction, name, names(a.Actions))
		}
		gone = a.Actions[i]
		a.Actions = slices.Delete(a.Actions, i, i+1)
		return nil
	})
	if err != nil {
		return err
	}
	if gone.ID != "" {
		return s.secrets.Delete(secretKey(assistantID, gone.ID))
	}
	return nil
}

// SignIn runs the OAuth sign-in of action name and keeps the token.
func (s *Actions) SignIn(ctx context.Context, ref, name string, open func(url string) error) error {
	assistantID, ac, err := s.action(ref, name)
	if err != nil {
		return err
	}
	au := authOf(ac)
	if au.Type != actions.AuthOAuth {
		return fmt.Errorf("%s does not sign in with OAuth (its auth is %s)", ac.Name, au.Type)
	}
	key := secretKey(assistantID, ac.ID)
	sec, _, err := s.secrets.Get(key)
	if err != nil {
		return err
	}
	tok, err := au.SignIn(ctx, sec.ClientSecret, open)
	if err != nil {
		return err
	}
	return s.secrets.Update(key, func(x *actions.Secret) { x.Token = tok })
}

// SetToken keeps an OAuth token for action name (what a sign-in made
// elsewhere gave).
func (s *Actions) SetToken(ref, name string, tok *oauth2.Token) error {
	assistantID, ac, err := s.action(ref, name)
	if err != nil {
		return err
	}
	return s.secrets.Update(secretKey(assistantID, ac.ID), func(x *actions.Secret) { x.Token = tok })
}

func (s *Actions) action(ref, name string) (string, assistant.Action, error) {
	a, err := s.c.ResolveAssistant(ref)
	if err != nil {
		return "", assistant.Action{}, err
	}
	i := find(a.Actions, name)
	if i < 0 {
		return "", assistant.Action{}, fmt.Errorf("%w %q: the assistant has %s", ErrNoAction, name, names(a.Actions))
	}
	return a.ID, named(a.Actions[i], i), nil
}

// SetAllowLocal gives or takes back action name's allowance to reach
// this machine and its networks (loopback, private, link-local, CGNAT,
// unique-local and metadata addresses): the user's own choice, made on
// this machine (an import never brings it).
func (s *Actions) SetAllowLocal(ref, name string, allow bool) (ActionInfo, error) {
	assistantID, _, err := s.action(ref, name)
	if err != nil {
		return ActionInfo{}, err
	}
	var out assistant.Action
	_, err = s.c.assistants.Edit(assistantID, func(a *assistant.Assistant) error {
		i := find(a.Actions, name)
		if i < 0 {
			return fmt.Errorf("%w %q: the assistant has %s", ErrNoAction, name, names(a.Actions))
		}
		a.Actions[i].AllowLocal = allow
		out = named(a.Actions[i], i)
		return nil
	})
	if err != nil {
		return ActionInfo{}, err
	}
	s.c.log.Info("action allowance changed", "assistant", assistantID, "action", out.Name, "allow_local", allow)
	return s.info(assistantID, out), nil
}

func (s *Actions) info(assistantID string, ac assistant.Action) ActionInfo {
	au := authOf(ac)
	in := ActionInfo{ID: ac.ID, Name: ac.Name, Auth: au.Type, Operations: []OperationInfo{}, Servers: []string{}, AllowLocal: ac.AllowLocal}
	if au.Type == actions.AuthHeader {
		in.Auth = "header:" + au.Header
	}
	if ac.ID != "" {
		if sec, ok, _ := s.secrets.Get(secretKey(assistantID, ac.ID)); ok {
			in.HasKey, in.SignedIn = sec.Key != "", sec.Token != nil
		}
	}
	in.Waiting = au.Waiting(in.HasKey, in.SignedIn)
	spec, err := actions.Parse(ac.Schema)
	if err != nil {
		in.Problem = err.Error()
		return in
	}
	in.Notes = spec.Warnings
	in.Title, in.SchemaOnly = spec.Title, spec.SchemaOnly
	in.Servers = append(in.Servers, spec.Servers...)
	for _, h := range spec.Hosts() {
		if actions.LocalHost(h) {
			in.Local = h
			break
		}
	}
	for _, op := range spec.Operations {
		in.Operations = append(in.Operations, OperationInfo{ID: op.ID, Method: op.Method, Path: op.Path,
			Description: op.Description, Rule: op.Rule(), AlwaysAllow: slices.Contains(ac.AlwaysAllow, op.ID)})
	}
	return in
}

// secretKey names an action's credentials in the file.
func secretKey(assistantID, actionID string) string { return assistantID + "/" + actionID }

func setAuth(ac *assistant.Action, au actions.Auth) {
	switch au.Type {
	case actions.AuthNone:
		ac.Auth = "none"
	case actions.AuthOAuth:
		ac.Auth = "oauth"
		ac.OAuth = &assistant.OAuthClient{ClientID: au.ClientID, AuthURL: au.AuthURL, TokenURL: au.TokenURL, Scope: au.Scope, TokenExchange: au.TokenExchange}
	default:
		ac.Auth, ac.Signing, ac.Header = "api_key", au.Type, au.Header
	}
}

// authOf is how a stored action signs; an imported api_key action with
// no signing yet is Bearer, ChatGPT's default.
func authOf(ac assistant.Action) actions.Auth {
	switch ac.Auth {
	case "api_key":
		t := ac.Signing
		if t == "" {
			t = actions.AuthBearer
		}
		return actions.Auth{Type: t, Header: ac.Header}
	case "oauth":
		au := actions.Auth{Type: actions.AuthOAuth}
		if ac.OAuth != nil {
			au.ClientID, au.AuthURL, au.TokenURL, au.Scope = ac.OAuth.ClientID, ac.OAuth.AuthURL, ac.OAuth.TokenURL, ac.OAuth.Scope
			au.TokenExchange = ac.OAuth.TokenExchange
		}
		return au
	}
	return actions.Auth{Type: actions.AuthNone}
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// named gives an imported action (no name yet) one from its place.
func named(ac assistant.Action, i int) assistant.Action {
	if ac.Name == "" {
		ac.Name = fmt.Sprintf("action-%d", i+1)
	}
	return ac
}

func unique(name string, have []assistant.Action) string {
	n, i := name, 2
	for find(have, n) >= 0 {
		n = fmt.Sprintf("%s-%d", name, i)
		i++
	}
	return n
}

func find(list []assistant.Action, name string) int {
	for i, ac := range list {
		if named(ac, i).Name == name || (ac.ID != "" && ac.ID == name) {
			return i
		}
	}
	return -1
}

func names(list []assistant.Action) string {
	if len(list) == 0 {
		return "no actions"
	}
	s := make([]string, len(list))
	for i, ac := range list {
		s[i] = named(ac, i).Name
	}
	return strings.Join(s, ", ")
}
