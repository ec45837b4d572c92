package audit

import (
	"fmt"
	"strings"

	"rehome/backend/assistant"
)

// An assistant imported from a ChatGPT GPT record (it has a g- id) is
// audited as the GPT was on ChatGPT: each capability's result says what
// the GPT had there (OnChatGPT), its actions with their auth, the files
// it answered from by count and type. How rehome hosts each capability is
// the capability's own rule; this only describes the GPT.

// gptFacts are what a Subject keeps of an imported GPT.
type gptFacts struct {
	// Actions describes each action as the GPT had it: its name, host and
	// auth, and what it waits for here.
	Actions []string `json:"actions,omitempty"`
}

// actionWords describes one action and its auth as ChatGPT had it.
func actionWords(ac assistant.Action) string {
	name := ac.Name
	if name == "" {
		name = "an action"
	}
	where := ac.Domain
	if where == "" {
		if hosts, _ := ActionServers(ac.Schema); len(hosts) > 0 {
			where = hosts[0]
		}
	}
	auth := "no auth"
	switch ac.Auth {
	case "api_key":
		switch ac.Signing {
		case "basic":
			auth = "an API key sent as HTTP Basic"
		case "header":
			auth = "an API key in the " + ac.Header + " header"
		default:
			auth = "an API key sent as a bearer token"
		}
	case "oauth":
		auth = "OAuth sign-in"
		if o := ac.OAuth; o != nil {
			var bits []string
			if o.Scope != "" {
				bits = append(bits, "scope "+o.Scope)
			}
			if o.PKCE {
				bits = append(bits, "PKCE")
			}
			if o.TokenExchange != "" {
				bits = append(bits, "token exchange "+o.TokenExchange)
			}
			if len(bits) > 0 {
				auth += " (" + strings.Join(bits, ", ") + ")"
			}
		}
	}
	if strings.TrimSpace(ac.Schema) == "" {
		auth += "; its schema did not come with the record"
	}
	if where != "" {
		return fmt.Sprintf("%s (%s, %s)", name, where, auth)
	}
	return fmt.Sprintf("%s (%s)", name, auth)
}

// onChatGPT says what the GPT s describes had on ChatGPT for capability
// id ("" for an assistant that did not come from ChatGPT).
func onChatGPT(s Subject, id string) string {
	if s.GizmoID == "" {
		return ""
	}
	switch id {
	case WebBrowsing:
		return "On ChatGPT this GPT searched and read the web (its browser tool)."
	case ImageGeneration:
		return "On ChatGPT this GPT made images (its DALL·E / image generation tool)."
	case Canvas:
		return "On ChatGPT this GPT wrote and edited documents and code beside the chat (canvas)."
	case CodeInterpreter:
		return "On ChatGPT this GPT ran Python on the files it was given (code interpreter)."
	case Knowledge:
		all := gptFiles(s.RemoteFiles, false)
		if len(all) == 0 {
			return "On ChatGPT this GPT answered from its knowledge files."
		}
		return fmt.Sprintf("On ChatGPT this GPT answered from %s.", assistant.DescribeFiles(all))
	case Actions:
		if len(s.GPT.Actions) == 0 {
			return ""
		}
		return fmt.Sprintf("On ChatGPT this GPT called %s: %s.", plural(len(s.GPT.Actions), "action"), strings.Join(s.GPT.Actions, "; "))
	}
	return ""
}

// gptFiles are the GPT's file references; open only those still to bring.
func gptFiles(refs []assistant.RemoteFile, open bool) []assistant.RemoteFile {
	var out []assistant.RemoteFile
	for _, rf := range refs {
		if rf.Kind == assistant.GPTFile && (!open || rf.Filled == "") {
			out = append(out, rf)
		}
	}
	return out
}

// bringGPTFiles says which of the GPT's files to bring, by count and
// type: "" when none is left.
func bringGPTFiles(s Subject) string {
	open := gptFiles(s.RemoteFiles, true)
	if len(open) == 0 {
		return ""
	}
	how := "drop them on the assistant (or `rehome knowledge add " + s.AssistantID + " FILE…`) and each fills its place"
	if n := len(gptFiles(s.RemoteFiles, false)) - len(open); n > 0 {
		return fmt.Sprintf("Bring the rest of these files: %s stayed on ChatGPT (%d brought already); %s.", assistant.DescribeFiles(open), n, how)
	}
	return fmt.Sprintf("Bring these files: %s stayed on ChatGPT (no record holds their bytes; download them from the GPT editor's Knowledge section); %s.", assistant.DescribeFiles(open), how)
}

// filesBehind is whether files a capability the assistant uses works on
// are still to bring from OpenAI (its knowledge, its code interpreter's).
func filesBehind(results []Result) bool {
	for _, r := range results {
		if r.Bring != "" && (r.ID == Knowledge || r.ID == CodeInterpreter) {
			return true
		}
	}
	return false
}

// gptFileKind is assistant.GPTFile, named here for audit.go.
const gptFileKind = assistant.GPTFile

// importedActions says, for actions that came with their schemas (from a
// GPT record, or added from a schema), what each still waits for here,
// with the commands that give it; "" when no action came that way.
func importedActions(a assistant.Assistant) (string, []string) {
	var waits []string
	cmds := []string{fmt.Sprintf("rehome actions list %s", a.ID)}
	came := 0
	for _, ac := range a.Actions {
		if strings.TrimSpace(ac.Schema) == "" || ac.ID == "" {
			continue
		}
		came++
		switch ac.Auth {
		case "api_key":
			waits = append(waits, ac.Name+" its API key")
			cmds = append(cmds, fmt.Sprintf("rehome actions key %s %s --key-stdin", a.ID, ac.Name))
		case "oauth":
			if ac.OAuth == nil || ac.OAuth.ClientID == "" {
				waits = append(waits, ac.Name+" its OAuth client (register one for rehome with the provider)")
				cmds = append(cmds, fmt.Sprintf("rehome actions key %s %s --client-id ID --client-secret-stdin", a.ID, ac.Name))
			}
			cmds = append(cmds, fmt.Sprintf("rehome actions signin %s %s", a.ID, ac.Name))
		}
	}
	if came == 0 {
		return "", nil
	}
	schemas := "their schemas"
	if came == 1 {
		schemas = "its schema"
	}
	s := fmt.Sprintf("Its %s came with %s and auth.", plural(came, "action"), schemas)
	if len(waits) > 0 {
		s += " Give " + strings.Join(waits, "; ") + ": ChatGPT keeps those secrets and no record holds them; here they stay in the data folder's owner-only file."
	}
	return s, cmds
}
