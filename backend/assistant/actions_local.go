package assistant

import (
	"fmt"
	"net/url"

	"rehome/backend/actions"
)

// An action's allowance to reach this machine and its networks
// (Action.AllowLocal) is the user's, given here: a record from outside
// (a JSON import, a bundle, another machine's Open WebUI export, a page
// sending a whole record) never brings it. Create and Restore drop it,
// Update keeps what was stored; only Edit (core.Actions' allow-local)
// changes it.

// withoutAllowance drops every action's allowance from a record that
// came from outside, and says so for each action that had it or whose
// server is plainly on this machine or its networks.
func withoutAllowance(a *Assistant) []string {
	var out []string
	for i := range a.Actions {
		ac := &a.Actions[i]
		name := ac.Name
		if name == "" {
			name = fmt.Sprintf("action-%d", i+1)
		}
		allow := fmt.Sprintf("if you run that API yourself, allow it with `rehome actions allow-local %q %s` (or the action's \"May call local addresses\" box in the assistant editor)", a.Name, name)
		switch {
		case ac.AllowLocal:
			ac.AllowLocal = false
			out = append(out, fmt.Sprintf("action %s: the file allowed it to call local addresses; an import never carries that allowance, so its calls to this machine and its networks are refused: %s", name, allow))
		default:
			if host := localServer(ac.Schema); host != "" {
				out = append(out, fmt.Sprintf("action %s calls %s, on this machine or its network: an imported action may not reach local addresses, so these calls are refused: %s", name, host, allow))
			}
		}
	}
	return out
}

// keepAllowance gives the actions of a record a face sent (the editor's
// whole record) the allowance stored for them, and no other: the same
// action (by id, or an imported one by its place and schema) keeps it, a
// new one has none.
func keepAllowance(a *Assistant, old *Assistant) {
	for i := range a.Actions {
		ac := &a.Actions[i]
		ac.AllowLocal = false
		for j, o := range old.Actions {
			if (ac.ID != "" && o.ID == ac.ID) || (ac.ID == "" && o.ID == "" && i == j && o.Schema == ac.Schema) {
				ac.AllowLocal = o.AllowLocal
				break
			}
		}
	}
}

// localServer is the first server of schema whose host is plainly local
// (an address of a local kind, or localhost), or "".
func localServer(schema string) string {
	spec, err := actions.Parse(schema)
	if err != nil {
		return ""
	}
	for _, s := range spec.Servers {
		if u, err := url.Parse(s); err == nil && actions.LocalHost(u.Host) {
			return u.Host
		}
	}
	return ""
}
