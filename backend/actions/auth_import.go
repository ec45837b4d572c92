package actions

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Declared is the auth a schema declares in components.securitySchemes,
// as rehome signs it, and what is still missing before a call can be
// signed.
type Declared struct {
	Auth Auth `json:"auth"`
	// Scheme names the security scheme it came from ("" for none).
	Scheme string `json:"scheme,omitempty"`
	// Note says what of the declaration rehome could not take.
	Note string `json:"note,omitempty"`
}

// DeclaredAuth reads the auth the schema declares: the security scheme
// its security requirements name (the document's, else the first
// operation's that names one), else its only scheme. An http bearer or
// basic scheme, an apiKey in a header, and an oauth2 authorization-code
// flow are what the GPT editor offers; other schemes are said in Note
// and read as none.
func (s *Spec) DeclaredAuth() Declared {
	if s == nil || s.doc == nil || s.doc.Components == nil || len(s.doc.Components.SecuritySchemes) == 0 {
		return Declared{Auth: Auth{Type: AuthNone}}
	}
	schemes := s.doc.Components.SecuritySchemes
	name := s.requiredScheme()
	if name == "" {
		keys := make([]string, 0, len(schemes))
		for k := range schemes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		name = keys[0]
	}
	ref := schemes[name]
	if ref == nil || ref.Value == nil {
		return Declared{Auth: Auth{Type: AuthNone}, Scheme: name, Note: fmt.Sprintf("security scheme %q is named but not described: read as no auth", name)}
	}
	d := schemeAuth(ref.Value)
	d.Scheme = name
	return d
}

// requiredScheme is the first scheme a security requirement names.
func (s *Spec) requiredScheme() string {
	first := func(reqs openapi3.SecurityRequirements) string {
		for _, r := range reqs {
			keys := make([]string, 0, len(r))
			for k := range r {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if s.doc.Components.SecuritySchemes[k] != nil {
					return k
				}
			}
		}
		return ""
	}
	if n := first(s.doc.Security); n != "" {
		return n
	}
	for _, op := range s.Operations {
		if op.op != nil && op.op.Security != nil {
			if n := first(*op.op.Security); n != "" {
				return n
			}
		}
	}
	return ""
}

func schemeAuth(sc *openapi3.SecurityScheme) Declared {
	none := Auth{Type: AuthNone}
	switch strings.ToLower(sc.Type) {
	case "http":
		switch strings.ToLower(sc.Scheme) {
		case "bearer":
			return Declared{Auth: Auth{Type: AuthBearer}}
		case "basic":
			return Declared{Auth: Auth{Type: AuthBasic}}
		}
		return Declared{Auth: none, Note: fmt.Sprintf("http scheme %q: the GPT editor signs with basic or bearer only; read as no auth", sc.Scheme)}
	case "apikey":
		switch {
		case strings.ToLower(sc.In) == "header" && sc.Name != "":
			if strings.EqualFold(sc.Name, "Authorization") {
				return Declared{Auth: Auth{Type: AuthHeader, Header: "Authorization"}}
			}
			return Declared{Auth: Auth{Type: AuthHeader, Header: http.CanonicalHeaderKey(sc.Name)}}
		case sc.In == "":
			return Declared{Auth: Auth{Type: AuthBearer}, Note: "an apiKey scheme that says neither where nor under what name: read as a bearer key, ChatGPT's default"}
		}
		return Declared{Auth: none, Note: fmt.Sprintf("an API key in the %s (%s): actions send keys in a header only, as the GPT editor does; read as no auth", sc.In, sc.Name)}
	case "oauth2":
		if sc.Flows != nil && sc.Flows.AuthorizationCode != nil {
			f := sc.Flows.AuthorizationCode
			scopes := make([]string, 0, len(f.Scopes))
			for k := range f.Scopes {
				scopes = append(scopes, k)
			}
			sort.Strings(scopes)
			return Declared{Auth: Auth{Type: AuthOAuth, AuthURL: f.AuthorizationURL, TokenURL: f.TokenURL, Scope: strings.Join(scopes, " ")}}
		}
		return Declared{Auth: none, Note: "an oauth2 scheme without an authorizationCode flow: the GPT editor signs in with the authorization code only; read as no auth"}
	}
	return Declared{Auth: none, Note: fmt.Sprintf("a %s security scheme: the GPT editor offers none, API key and OAuth only; read as no auth", sc.Type)}
}

// Waiting says what the auth still needs before a call can be signed,
// given what the user has given: "" when nothing.
func (a Auth) Waiting(hasKey, signedIn bool) string {
	switch {
	case a.NeedsKey() && !hasKey:
		return "its API key"
	case a.Type == AuthOAuth && (a.ClientID == "" || a.AuthURL == "" || a.TokenURL == ""):
		return "its OAuth client (the client id and secret registered with the provider)"
	case a.Type == AuthOAuth && !signedIn:
		return "a sign-in"
	}
	return ""
}
