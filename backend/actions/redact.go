package actions

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// An API may echo what it was sent (httpbin's /headers, a debug
// endpoint, an error page quoting the request): the action's key would
// then be in the answer, and from there in the kept conversation, the
// window, an export and the model server's input. Every stored secret of
// the action, and every credential the call sent, is cut out of the
// result before anything else sees it.

// Redacted is what a secret becomes in a result.
const Redacted = "[redacted: a credential of this action]"

// minSecret is the shortest value cut out: shorter ones are not secrets
// that an answer could be searched for without cutting ordinary words.
const minSecret = 4

// SecretValues are the values of a stored secret to cut out: the key, the
// client secret, the OAuth access and refresh tokens.
func (v Secret) SecretValues() []string {
	out := []string{v.Key, v.ClientSecret}
	if v.Token != nil {
		out = append(out, v.Token.AccessToken, v.Token.RefreshToken)
	}
	var all []string
	for _, s := range out {
		all = append(all, credentialForms(s)...)
	}
	return all
}

// credentialForms are the forms of a credential an answer may hold: as
// sent (a whole header value, "Bearer …"), its parts after the scheme,
// Basic's decoded user:password and password, and each of those as JSON
// and URLs escape them.
func credentialForms(v string) []string {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	forms := []string{v}
	if scheme, rest, ok := strings.Cut(v, " "); ok {
		rest = strings.TrimSpace(rest)
		forms = append(forms, rest)
		if strings.EqualFold(scheme, "basic") {
			forms = append(forms, basicForms(rest)...)
		}
	}
	forms = append(forms, basicForms(v)...)
	var out []string
	for _, f := range forms {
		j, _ := json.Marshal(f)
		out = append(out, f, strings.Trim(string(j), `"`), url.QueryEscape(f), url.PathEscape(f))
	}
	return out
}

// basicForms: a Basic key is base64 of user:password; the decoded pair
// and the password are secrets too.
func basicForms(v string) []string {
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil || !strings.Contains(string(b), ":") {
		return nil
	}
	_, pass, _ := strings.Cut(string(b), ":")
	return []string{string(b), pass}
}

// redactor replaces secrets in text, longest first (so a value that holds
// another is cut whole).
type redactor struct{ r *strings.Replacer }

func newRedactor(values []string) redactor {
	seen := map[string]bool{}
	var vs []string
	for _, v := range values {
		if len(v) >= minSecret && !seen[v] {
			seen[v] = true
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return redactor{}
	}
	sort.Slice(vs, func(i, j int) bool { return len(vs[i]) > len(vs[j]) })
	pairs := make([]string, 0, 2*len(vs))
	for _, v := range vs {
		pairs = append(pairs, v, Redacted)
	}
	return redactor{strings.NewReplacer(pairs...)}
}

func (x redactor) text(s string) (string, int) {
	if x.r == nil || s == "" {
		return s, 0
	}
	out := x.r.Replace(s)
	if out == s {
		return s, 0
	}
	return out, strings.Count(out, Redacted) - strings.Count(s, Redacted)
}

// result cuts the secrets out of every text of res, and notes it.
func (x redactor) result(res *Result) {
	n := 0
	for _, p := range []*string{&res.Body, &res.ContentType, &res.Mismatch, &res.URL, &res.Note} {
		var k int
		*p, k = x.text(*p)
		n += k
	}
	if n > 0 {
		note := fmt.Sprintf("the answer held this action's credentials %d time(s); rehome cut them out", n)
		if res.Note != "" {
			note = res.Note + "; " + note
		}
		res.Note = note
	}
}

// Redact cuts the values (stored secrets, see Secret.SecretValues) out
// of s: for text that did not come through Call (an error message).
func Redact(s string, values []string) string {
	out, _ := newRedactor(values).text(s)
	return out
}
