package audit

import (
	"strings"
	"testing"

	"rehome/backend/assistant"
)

// What the audit says of actions that came with their schemas, in one
// action's words and in several's, with the key each waits for.
func TestImportedActionsWords(t *testing.T) {
	one := assistant.Assistant{ID: "a1", Actions: []assistant.Action{{ID: "x", Name: "weather", Schema: "{}", Auth: "api_key"}}}
	s, cmds := importedActions(one)
	if !strings.HasPrefix(s, "Its 1 action came with its schema and auth.") || !strings.Contains(s, "weather its API key") {
		t.Fatalf("one action: %q", s)
	}
	if len(cmds) != 2 || cmds[1] != "rehome actions key a1 weather --key-stdin" {
		t.Fatalf("one action's commands: %q", cmds)
	}
	two := one
	two.Actions = append(two.Actions, assistant.Action{ID: "y", Name: "news", Schema: "{}"})
	if s, _ := importedActions(two); !strings.HasPrefix(s, "Its 2 actions came with their schemas and auth.") {
		t.Fatalf("two actions: %q", s)
	}
	if s, cmds := importedActions(assistant.Assistant{ID: "a2"}); s != "" || cmds != nil {
		t.Fatalf("no action: %q %q", s, cmds)
	}
}
