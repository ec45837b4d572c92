package mcphost

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Server is one MCP server an assistant uses, as the user added it. It
// is kept apart from the assistant's record, so that a bundle or an
// export never carries a command to run on another machine.
type Server struct {
	Name string `json:"name"`
	// Command and its arguments start a stdio server; URL names a
	// Streamable HTTP one. Exactly one is set.
	Command []string `json:"command,omitempty"`
	URL     string   `json:"url,omitempty"`
	// Env are the KEY=VALUE pairs the user gave the server (nothing else
	// of rehome's environment reaches it).
	Env []string `json:"env,omitempty"`
	// Off: kept, not offered to the model.
	Off bool `json:"off,omitempty"`
	// AlwaysAllow lists the tools the user chose "Always allow" for.
	AlwaysAllow []string `json:"always_allow,omitempty"`
}

var serverName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,23}$`)
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Check says what is wrong with s, in words, or nil.
func (s Server) Check() error {
	if !serverName.MatchString(s.Name) {
		return fmt.Errorf("%w: name %q: use 1–24 lower-case letters, digits and dashes (it starts the tools' names)", ErrBadServer, s.Name)
	}
	switch {
	case len(s.Command) > 0 && s.URL != "":
		return fmt.Errorf("%w: give a command or --url, not both", ErrBadServer)
	case len(s.Command) == 0 && s.URL == "":
		return fmt.Errorf("%w: give the command after -- (e.g. -- npx -y @modelcontextprotocol/server-everything) or --url", ErrBadServer)
	case s.URL != "":
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%w: %q is not an http(s) URL", ErrBadServer, s.URL)
		}
	}
	for _, kv := range s.Env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || !envName.MatchString(k) {
			return fmt.Errorf("%w: --env %q: give KEY=VALUE", ErrBadServer, kv)
		}
	}
	return nil
}

// Kind is "stdio" or "http".
func (s Server) Kind() string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}
