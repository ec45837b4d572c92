package core

import (
	"errors"
	"fmt"
	"strings"

	"rehome/backend/actions"
	"rehome/backend/assistant"
	"rehome/backend/store"
)

// addAuth is the auth an added action signs with: --auth when the user
// gave it (then its key or client must come too), else what the schema's
// securitySchemes declare, which may wait for its key or OAuth client.
func addAuth(spec *actions.Spec, in AddAction) (actions.Auth, error) {
	declared := strings.TrimSpace(in.Auth) == ""
	var au actions.Auth
	if declared {
		au = spec.DeclaredAuth().Auth
	} else {
		var err error
		if au, err = actions.ParseAuth(in.Auth); err != nil {
			return actions.Auth{}, err
		}
	}
	if in.OAuth != nil {
		if in.OAuth.ClientID != "" {
			au.ClientID = in.OAuth.ClientID
		}
		if in.OAuth.AuthURL != "" {
			au.AuthURL = in.OAuth.AuthURL
		}
		if in.OAuth.TokenURL != "" {
			au.TokenURL = in.OAuth.TokenURL
		}
		if in.OAuth.Scope != "" {
			au.Scope = in.OAuth.Scope
		}
	}
	if declared {
		return au, nil
	}
	if err := au.Check(); err != nil {
		return actions.Auth{}, err
	}
	if au.NeedsKey() && strings.TrimSpace(in.Key) == "" {
		return actions.Auth{}, fmt.Errorf("%w: --auth %s needs the API key: pipe it in with --key-stdin", actions.ErrNoCredential, in.Auth)
	}
	return au, nil
}

// ActionCredentials is what an action waits for: its API key, or its
// OAuth client (the client id kept with the assistant, the secret in the
// owner-only credentials file).
type ActionCredentials struct {
	Key          string `json:"key,omitempty"`
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
}

// SetCredentials gives action name (or id) of the assistant what it was
// waiting for: an action imported from a GPT, or added from a schema
// whose auth it declared, comes without its secrets.
func (s *Actions) SetCredentials(assistantID, name string, in ActionCredentials) (ActionInfo, error) {
	if err := s.c.Ready(); err != nil {
		return ActionInfo{}, err
	}
	in.Key, in.ClientID = strings.TrimSpace(in.Key), strings.TrimSpace(in.ClientID)
	if in.Key == "" && in.ClientID == "" && in.ClientSecret == "" {
		return ActionInfo{}, errors.New("nothing to keep: give the API key (--key-stdin) or the OAuth client (--client-id ID, --client-secret-stdin)")
	}
	var stored assistant.Action
	_, err := s.c.assistants.Edit(assistantID, func(a *assistant.Assistant) error {
		i := find(a.Actions, name)
		if i < 0 {
			return fmt.Errorf("%w %q: the assistant has %s", ErrNoAction, name, names(a.Actions))
		}
		ac := &a.Actions[i]
		au := authOf(*ac)
		switch {
		case in.Key != "" && !au.NeedsKey():
			return fmt.Errorf("%s signs with %s, not an API key: give it its OAuth client instead", named(*ac, i).Name, au.Type)
		case (in.ClientID != "" || in.ClientSecret != "") && au.Type != actions.AuthOAuth:
			return fmt.Errorf("%s does not sign in with OAuth (its auth is %s): give it its API key instead", named(*ac, i).Name, au.Type)
		}
		if ac.ID == "" {
			ac.ID = store.NewID()
		}
		if ac.Name == "" {
			ac.Name = named(*ac, i).Name
		}
		if in.ClientID != "" {
			if ac.OAuth == nil {
				ac.OAuth = &assistant.OAuthClient{}
			}
			ac.OAuth.ClientID = in.ClientID
		}
		stored = *ac
		return nil
	})
	if err != nil {
		return ActionInfo{}, err
	}
	if in.Key != "" || in.ClientSecret != "" {
		if err := s.secrets.Update(secretKey(assistantID, stored.ID), func(x *actions.Secret) {
			if in.Key != "" {
				x.Key = in.Key
			}
			if in.ClientSecret != "" {
				x.ClientSecret = in.ClientSecret
			}
		}); err != nil {
			return ActionInfo{}, err
		}
	}
	return s.info(assistantID, stored), nil
}
