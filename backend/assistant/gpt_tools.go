package assistant

import (
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"

	"rehome/backend/actions"
	"rehome/backend/store"
)

// gptTools maps the tool types of ChatGPT's GPT records to capabilities.
var gptTools = map[string]Capability{
	"browser":         WebBrowsing,
	"web":             WebBrowsing,
	"python":          CodeInterpreter,
	"dalle":           ImageGeneration,
	"image_gen":       ImageGeneration,
	"canvas":          Canvas,
	"canmore":         Canvas,
	"retrieval":       Knowledge,
	"file_search":     Knowledge,
	"myfiles_browser": Knowledge,
	"memory":          Memory,
	"bio":             Memory,
}

// tools maps the record's tools: capabilities, and each plugins_prototype
// an action. Tools of one capability listed twice (dalle and image_gen)
// are kept once, and said.
func (p *gptParser) tools(a *Assistant) {
	seen := map[Capability][]string{}
	for i, v := range p.rec.tools {
		t, ok := v.(map[string]any)
		if !ok {
			p.warn("tools[%d]: not an object (%s): left out", i, typeName(v))
			continue
		}
		typ, _ := t["type"].(string)
		switch c, known := gptTools[typ]; {
		case typ == "plugins_prototype":
			p.action(a, i, t)
		case known:
			if len(seen[c]) == 0 {
				a.Capabilities = append(a.Capabilities, c)
			}
			seen[c] = append(seen[c], typ)
		default:
			p.warn("tools[%d]: the tool %q is not one rehome knows (it reads browser, python, dalle, image_gen, canvas and plugins_prototype): left out", i, typ)
		}
	}
	for c, types := range seen {
		if len(types) > 1 {
			p.warn("tools: %s is listed %d times (%s): kept once", c, len(types), strings.Join(types, ", "))
		}
	}
}

// action maps a plugins_prototype tool: its schema (metadata.raw_spec,
// text, or metadata.json_schema, an object), domain, privacy URL and auth.
// The action is kept even when rehome cannot call it yet, and the report
// says why.
func (p *gptParser) action(a *Assistant, i int, t map[string]any) {
	md, _ := t["metadata"].(map[string]any)
	place := fmt.Sprintf("tools[%d] (action)", i)
	ac := Action{ID: store.NewID(), Auth: "none"}
	ac.Domain, _ = md["domain"].(string)
	ac.Source, _ = md["action_id"].(string)
	ac.PrivacyURL, _ = md["privacy_policy_url"].(string)
	if ac.Domain != "" {
		place = fmt.Sprintf("tools[%d] (action %s)", i, ac.Domain)
	}
	switch raw := md["raw_spec"].(type) {
	case string:
		if p.unescape {
			raw = html.UnescapeString(raw)
		}
		ac.Schema = raw
	}
	if ac.Schema == "" {
		if js, ok := md["json_schema"].(map[string]any); ok {
			b, _ := json.MarshalIndent(js, "", "  ")
			ac.Schema = string(b)
		} else if s, ok := md["json_schema"].(string); ok {
			ac.Schema = s
		}
	}
	if strings.TrimSpace(ac.Schema) == "" {
		p.warn("%s: the record has no schema (metadata.raw_spec and json_schema are empty; the store shows schemas to the GPT's owner only): it is kept by its domain, and the audit lists it; add the schema with `rehome actions add`", place)
	}
	var spec *actions.Spec
	if ac.Schema != "" {
		var err error
		if spec, err = actions.Parse(ac.Schema); err != nil {
			p.warn("%s: its schema cannot be called as it is (%v): it is kept, and `rehome actions list` shows the problem", place, err)
		} else {
			for _, w := range spec.Warnings {
				p.warn("%s: %s", place, w)
			}
		}
	}
	title := ac.Domain
	if spec != nil && spec.Title != "" {
		title = spec.Title
	}
	ac.Name = uniqueActionName(slugName(title), a.Actions)
	p.auth(&ac, place, md["auth"], spec)
	a.Actions = append(a.Actions, ac)
}

// auth maps ChatGPT's metadata.auth: none, service_http (an API key:
// bearer, basic or a custom header) or oauth (client_url is the
// authorization URL, authorization_url the token URL). The key and the
// client are not in any record: the action waits for them. With no
// metadata.auth, the schema's securitySchemes say.
func (p *gptParser) auth(ac *Action, place string, v any, spec *actions.Spec) {
	au, _ := v.(map[string]any)
	typ, _ := au["type"].(string)
	switch typ {
	case "", "none":
		if typ == "" && spec != nil {
			d := spec.DeclaredAuth()
			setActionAuth(ac, d.Auth)
			if d.Note != "" {
				p.warn("%s: %s", place, d.Note)
			}
		}
	case "service_http":
		ac.Auth = "api_key"
		kind, _ := au["authorization_type"].(string)
		switch kind {
		case "basic", "bearer":
			ac.Signing = kind
		case "custom":
			ac.Signing, ac.Header = "header", strings.TrimSpace(fmt.Sprint(au["custom_auth_header"]))
			if ac.Header == "" || ac.Header == "<nil>" {
				ac.Signing, ac.Header = "bearer", ""
				p.warn("%s: a custom auth header with no name: the key is sent as a bearer token", place)
			}
		default:
			ac.Signing = "bearer"
			p.warn("%s: API key sent as %q: read as a bearer token, ChatGPT's default", place, kind)
		}
		p.warn("%s: waiting for its API key (ChatGPT keeps it, no record holds it): give it with `rehome actions key %s --key-stdin` or in the Actions panel", place, actionWord(ac))
	case "oauth":
		ac.Auth = "oauth"
		o := &OAuthClient{}
		o.AuthURL, _ = au["client_url"].(string)
		o.TokenURL, _ = au["authorization_url"].(string)
		o.Scope, _ = au["scope"].(string)
		o.PKCE, _ = au["pkce_required"].(bool)
		o.TokenExchange, _ = au["token_exchange_method"].(string)
		ac.OAuth = o
		p.warn("%s: signs in with OAuth (%s): waiting for its OAuth client — ChatGPT keeps the client id and secret the GPT's author registered; register one for rehome with the provider and give it with `rehome actions key %s --client-id ID --client-secret-stdin`, then sign in", place, o.AuthURL, actionWord(ac))
	default:
		p.warn("%s: auth type %q is not one the GPT editor has (none, service_http, oauth): read as none", place, typ)
	}
}

// setActionAuth keeps a declared auth on the action as `rehome actions
// add` does.
func setActionAuth(ac *Action, au actions.Auth) {
	switch au.Type {
	case actions.AuthNone, "":
		ac.Auth = "none"
	case actions.AuthOAuth:
		ac.Auth = "oauth"
		ac.OAuth = &OAuthClient{ClientID: au.ClientID, AuthURL: au.AuthURL, TokenURL: au.TokenURL, Scope: au.Scope}
	default:
		ac.Auth, ac.Signing, ac.Header = "api_key", au.Type, au.Header
	}
}

func actionWord(ac *Action) string {
	return "ASSISTANT " + ac.Name
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slugName is an action's name as `rehome actions` takes it (the same
// rule as core's).
func slugName(s string) string {
	s = strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if s == "" {
		return "action"
	}
	return s
}

func uniqueActionName(name string, have []Action) string {
	n := name
	for i := 2; slices.ContainsFunc(have, func(a Action) bool { return a.Name == n }); i++ {
		n = fmt.Sprintf("%s-%d", name, i)
	}
	return n
}

// files maps the record's files to references to bring: by id and MIME
// type, and name where the owner's view gives it.
func (p *gptParser) files(a *Assistant) {
	for i, v := range p.rec.files {
		f, ok := v.(map[string]any)
		if !ok {
			p.warn("files[%d]: not an object (%s): left out", i, typeName(v))
			continue
		}
		rf := RemoteFile{Tool: Knowledge, Kind: GPTFile}
		rf.ID, _ = f["file_id"].(string)
		if rf.ID == "" {
			rf.ID, _ = f["id"].(string)
		}
		rf.Type, _ = f["type"].(string)
		rf.Name, _ = f["name"].(string)
		if rf.ID == "" && rf.Name == "" {
			p.warn("files[%d]: no id and no name: left out", i)
			continue
		}
		a.RemoteFiles = append(a.RemoteFiles, rf)
	}
	if n := len(a.RemoteFiles); n > 0 {
		a.Capabilities = append(a.Capabilities, Knowledge)
		p.warn("files: the GPT answers from %s that stayed on ChatGPT (no record holds their bytes): bring them — drop them on the assistant, or `rehome knowledge add` — and each fills its place", DescribeFiles(a.RemoteFiles))
	}
}
