package actions

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// build makes the request: path parameters escaped as one segment each,
// query and header parameters, the JSON body; the URL checked to stay on
// the first server.
func (c *Client) build(ctx context.Context, s *Spec, op *Operation, args string) (*http.Request, error) {
	if n := utf8.RuneCountInString(args); n > MaxChars {
		return nil, refused("the request is %d characters, more than the %d an action may send", n, MaxChars)
	}
	in := map[string]any{}
	if strings.TrimSpace(args) != "" {
		if err := json.Unmarshal([]byte(args), &in); err != nil {
			return nil, fmt.Errorf("the arguments of %s are not a JSON object (%v): call it with {\"name\": value, …}", op.ID, err)
		}
	}
	base, _ := url.Parse(s.Servers[0])
	path := op.Path
	q := url.Values{}
	hdr := http.Header{}
	for _, p := range op.params {
		v, ok := in[p.Name]
		delete(in, p.Name)
		if !ok || v == nil {
			if p.Required {
				return nil, fmt.Errorf("%s needs the argument %q (%s)", op.ID, p.Name, p.In)
			}
			continue
		}
		str := scalar(v)
		switch p.In {
		case "path":
			if str == "" || str == "." || str == ".." || strings.ContainsAny(str, "/\\") || strings.Contains(str, "..") {
				return nil, refused("the path parameter %s is %q: a path parameter is one segment, with no / or ..", p.Name, str)
			}
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(str))
		case "query":
			q.Set(p.Name, str)
		case "header":
			if strings.ContainsAny(str, "\r\n") {
				return nil, refused("the header %s holds a line break", p.Name)
			}
			hdr.Set(p.Name, str)
		}
	}
	var body io.Reader
	if op.body {
		var v any = in
		if !op.bodyFlat {
			v = in["body"]
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if n := utf8.RuneCount(b); n > MaxChars {
			return nil, refused("the request body is %d characters, more than the %d an action may send", n, MaxChars)
		}
		body = bytes.NewReader(b)
	}
	prefix := strings.TrimRight(base.EscapedPath(), "/")
	u, err := url.Parse(base.Scheme + "://" + base.Host + prefix + path)
	if err != nil {
		return nil, refused("the address for %s does not parse: %v", op.ID, err)
	}
	u.RawQuery = q.Encode()
	if u.Host != base.Host || !strings.HasPrefix(u.EscapedPath(), prefix+"/") {
		return nil, refused("the address %s leaves the server %s", u.String(), s.Servers[0])
	}
	req, err := http.NewRequestWithContext(ctx, op.Method, u.String(), body)
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, */*;q=0.5")
	req.Header.Set("User-Agent", "rehome-actions")
	return req, nil
}

func scalar(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case float64, bool, json.Number:
		return fmt.Sprint(t)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
