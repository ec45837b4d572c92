package audit

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"rehome/backend/assistant"
)

// Subject is what one audit column is about: a stored assistant, or a
// list of features ticked by hand.
type Subject struct {
	AssistantID string   `json:"assistant_id,omitempty"`
	Name        string   `json:"name"`
	Features    []string `json:"features"` // capability ids, catalog order
	// ActionHosts are the hosts outside this machine and its network that
	// the assistant's actions call; ActionUnknownURL is true when an action
	// names no server (and so is assumed to call out).
	ActionHosts []string `json:"action_hosts"`
	// ZIM and ZIMWhat name the Kiwix library to carry for its subject
	// (browsing.go).
	ZIM              string `json:"zim,omitempty"`
	ZIMWhat          string `json:"zim_what,omitempty"`
	ActionUnknownURL bool   `json:"action_unknown_url"`
	ActionOAuth      bool   `json:"action_oauth"`
	// KnowledgeFiles counts the knowledge files that came with the
	// assistant; RemoteFiles are those still on OpenAI's servers.
	KnowledgeFiles int                    `json:"knowledge_files"`
	RemoteFiles    []assistant.RemoteFile `json:"remote_files,omitempty"`
	// GizmoID is the GPT's id on ChatGPT when the assistant came from
	// ChatGPT's record; GPT what the audit says of the GPT as it was.
	GizmoID string   `json:"gizmo_id,omitempty"`
	GPT     gptFacts `json:"gpt,omitempty"`
	// MCP are the MCP servers the assistant has in rehome (mcp.go).
	MCP []MCPServer `json:"mcp_servers,omitempty"`
	// Conversations is how many of the GPT's conversations moved from
	// ChatGPT's data export are filed under the assistant.
	Conversations int `json:"conversations,omitempty"`
}

// featureAliases maps names people use for a capability to its id.
var featureAliases = map[string]string{
	"browsing": WebBrowsing, "web": WebBrowsing, "web_search": WebBrowsing, "search": WebBrowsing,
	"dalle": ImageGeneration, "dall_e": ImageGeneration, "images": ImageGeneration, "image_gen": ImageGeneration,
	"code": CodeInterpreter, "python": CodeInterpreter, "data_analysis": CodeInterpreter,
	"retrieval": Knowledge, "file_search": Knowledge, "files": Knowledge,
	"action": Actions, "function": Actions, "functions": Actions, "tools": Actions,
	"starters": ConversationStarters, "system_prompt": Instructions, "uploads": FileUploads,
	"file_upload": FileUploads, "image_input": Vision,
}

// NormalizeFeatures turns user-given feature names into capability ids in
// catalog order, without duplicates. An unknown name is an error that lists
// the known ids.
func NormalizeFeatures(in []string) ([]string, error) {
	set := map[string]bool{}
	for _, f := range in {
		for _, part := range strings.Split(f, ",") {
			id := strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(part)))
			if id == "" {
				continue
			}
			if a, ok := featureAliases[id]; ok {
				id = a
			}
			if !slices.Contains(CapabilityIDs, id) {
				return nil, fmt.Errorf("unknown feature %q: use one of %s", strings.TrimSpace(part), strings.Join(CapabilityIDs, ", "))
			}
			set[id] = true
		}
	}
	out := []string{}
	for _, id := range CapabilityIDs {
		if set[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

// ManualSubject is a subject for features ticked by hand. Instructions are
// always part of a GPT, so they are added. Actions given by hand are taken
// to call an outside API unless actionsLocal says they stay on this
// machine or network (a GPT's actions must be reachable from OpenAI, so
// outside is the usual case).
func ManualSubject(name string, features []string, actionsLocal bool) (Subject, error) {
	ids, err := NormalizeFeatures(append([]string{Instructions}, features...))
	if err != nil {
		return Subject{}, err
	}
	if strings.TrimSpace(name) == "" {
		name = "Features given by hand"
	}
	s := Subject{Name: strings.TrimSpace(name), Features: ids, ActionHosts: []string{}}
	if slices.Contains(ids, Actions) && !actionsLocal {
		s.ActionUnknownURL = true
	}
	return s, nil
}

// SubjectFor derives the features of a stored assistant: instructions
// always, starters, knowledge and actions when it has them, its
// switched-on capabilities (knowledge among them: file search stays on
// whether or not its files came along), and the capabilities of files it
// left on OpenAI's servers.
func SubjectFor(a assistant.Assistant) Subject {
	set := map[string]bool{Instructions: true}
	if len(a.Starters) > 0 {
		set[ConversationStarters] = true
	}
	if len(a.Knowledge) > 0 {
		set[Knowledge] = true
	}
	if len(a.Actions) > 0 {
		set[Actions] = true
	}
	for _, c := range a.Capabilities {
		if slices.Contains(CapabilityIDs, string(c)) {
			set[string(c)] = true
		}
	}
	for _, rf := range a.RemoteFiles {
		// A file left on OpenAI still means the capability that uses it.
		if slices.Contains(CapabilityIDs, string(rf.Tool)) {
			set[string(rf.Tool)] = true
		}
	}
	s := Subject{AssistantID: a.ID, Name: a.Name, Features: []string{}, ActionHosts: []string{},
		KnowledgeFiles: len(a.Knowledge), RemoteFiles: slices.Clone(a.RemoteFiles), GizmoID: a.GizmoID}
	s.ZIM, s.ZIMWhat = SuggestZIM(a.Name, a.Description+"\n"+a.Instructions) // browsing.go
	if a.GizmoID != "" {
		for _, ac := range a.Actions {
			s.GPT.Actions = append(s.GPT.Actions, actionWords(ac))
		}
	}
	for _, id := range CapabilityIDs {
		if set[id] {
			s.Features = append(s.Features, id)
		}
	}
	for _, ac := range a.Actions {
		hosts, unknown := ActionServers(ac.Schema)
		for _, h := range hosts {
			if !slices.Contains(s.ActionHosts, h) {
				s.ActionHosts = append(s.ActionHosts, h)
			}
		}
		s.ActionUnknownURL = s.ActionUnknownURL || unknown
		s.ActionOAuth = s.ActionOAuth || ac.Auth == "oauth"
	}
	return s
}

// ActionServers reads the servers an action's schema calls (OpenAPI 3
// `servers[].url`, Swagger 2 `host`), JSON or YAML, and returns the hosts
// outside this machine and its private network. unknown is true when the
// schema names no usable server, or cannot be read: such an action is
// assumed to call out.
func ActionServers(schema string) (external []string, unknown bool) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(schema), &doc); err != nil {
		if err := yaml.Unmarshal([]byte(schema), &doc); err != nil || doc == nil {
			return nil, true
		}
	}
	var urls []string
	if servers, ok := doc["servers"].([]any); ok {
		for _, s := range servers {
			if m, ok := s.(map[string]any); ok {
				if u, ok := m["url"].(string); ok {
					urls = append(urls, u)
				}
			}
		}
	}
	if host, ok := doc["host"].(string); ok && host != "" {
		urls = append(urls, "https://"+host)
	}
	if len(urls) == 0 {
		return nil, true
	}
	external = []string{}
	for _, raw := range urls {
		host, ok := urlHost(raw)
		if !ok {
			unknown = true
			continue
		}
		if !isLocalHost(host) && !slices.Contains(external, host) {
			external = append(external, host)
		}
	}
	return external, unknown
}

var templateVar = regexp.MustCompile(`\{[^}]*\}`)

// urlHost returns the host name of a server URL; a relative URL (served
// from wherever the schema is) has none.
func urlHost(raw string) (string, bool) {
	u, err := url.Parse(templateVar.ReplaceAllString(strings.TrimSpace(raw), "x"))
	if err != nil || u.Hostname() == "" {
		return "", false
	}
	return strings.ToLower(u.Hostname()), true
}

// isLocalHost reports whether host is this machine or a private network:
// loopback, private and link-local addresses, carrier-grade NAT (VPN
// meshes), and names such as localhost, *.local, *.internal, *.lan,
// *.home.arpa, or a single label.
func isLocalHost(host string) bool {
	if ip := net.ParseIP(host); ip != nil {
		_, cgnat, _ := net.ParseCIDR("100.64.0.0/10")
		return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() || cgnat.Contains(ip)
	}
	if !strings.Contains(host, ".") {
		return true
	}
	for _, suffix := range []string{".localhost", ".local", ".internal", ".lan", ".home.arpa", ".localdomain"} {
		if strings.HasSuffix(host, suffix) {
			return true
		}
	}
	return false
}
