package audit

import (
	"slices"
	"testing"

	"rehome/backend/assistant"
)

func TestActionServers(t *testing.T) {
	cases := []struct {
		name     string
		schema   string
		external []string
		unknown  bool
	}{
		{"OpenAPI 3 JSON", `{"openapi":"3.1.0","servers":[{"url":"https://api.weather.example.com/v1"}],"paths":{}}`, []string{"api.weather.example.com"}, false},
		{"OpenAPI 3 YAML", "openapi: 3.0.0\ninfo:\n  title: Tasks\nservers:\n  - url: https://tasks.example.org\n  - url: http://localhost:8080\npaths: {}\n", []string{"tasks.example.org"}, false},
		{"JSON indented with tabs", "{\n\t\"openapi\": \"3.0.0\",\n\t\"servers\": [{\"url\": \"https://x.example.net\"}]\n}", []string{"x.example.net"}, false},
		{"server variables", `{"servers":[{"url":"https://{region}.api.example.com/{version}"}]}`, []string{"x.api.example.com"}, false},
		{"Swagger 2 host", `{"swagger":"2.0","host":"legacy.example.com","basePath":"/api"}`, []string{"legacy.example.com"}, false},
		{"loopback and private", `{"servers":[{"url":"http://127.0.0.1:5000"},{"url":"http://192.168.1.20/api"},{"url":"https://nas.local"},{"url":"http://[::1]:8000"},{"url":"http://100.101.1.2"},{"url":"http://intranet"}]}`, []string{}, false},
		{"relative server", `{"servers":[{"url":"/api"}]}`, []string{}, true},
		{"no servers", `{"openapi":"3.0.0","paths":{}}`, nil, true},
		{"function tool", `{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}`, nil, true},
		{"not a schema", `this is not JSON: [`, nil, true},
		{"empty", ``, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ext, unknown := ActionServers(c.schema)
			if !slices.Equal(ext, c.external) || unknown != c.unknown {
				t.Fatalf("got %v unknown=%v, want %v unknown=%v", ext, unknown, c.external, c.unknown)
			}
		})
	}
}

func TestSubjectFor(t *testing.T) {
	a := assistant.Assistant{
		ID: "a1", Name: "Data helper", Instructions: "Help.",
		Starters:     []string{"Plot it"},
		Knowledge:    []assistant.KnowledgeFile{{Name: "guide.pdf"}},
		Capabilities: []assistant.Capability{assistant.Vision, assistant.CodeInterpreter},
		Actions: []assistant.Action{
			{Schema: `{"servers":[{"url":"https://api.example.com"}]}`, Auth: "oauth"},
			{Schema: `{"servers":[{"url":"https://api.example.com/v2"}]}`, Auth: "api_key"},
		},
	}
	s := SubjectFor(a)
	want := []string{Instructions, ConversationStarters, Knowledge, CodeInterpreter, Actions, Vision}
	if !slices.Equal(s.Features, want) {
		t.Fatalf("features %v, want %v", s.Features, want)
	}
	if s.AssistantID != "a1" || s.Name != "Data helper" || !slices.Equal(s.ActionHosts, []string{"api.example.com"}) || s.ActionUnknownURL || !s.ActionOAuth {
		t.Fatalf("%+v", s)
	}
	// file_search without files, and files left on OpenAI: the capability
	// stays, and the subject knows which files to ask for.
	remote := SubjectFor(assistant.Assistant{ID: "r", Name: "Remote",
		Capabilities: []assistant.Capability{assistant.Knowledge},
		RemoteFiles:  []assistant.RemoteFile{{Tool: assistant.CodeInterpreter, Kind: "file", ID: "file-1"}}})
	if !slices.Equal(remote.Features, []string{Instructions, Knowledge, CodeInterpreter}) || remote.KnowledgeFiles != 0 || len(remote.RemoteFiles) != 1 {
		t.Fatalf("remote: %+v", remote)
	}
	bare := SubjectFor(assistant.Assistant{ID: "b", Name: "Bare"})
	if !slices.Equal(bare.Features, []string{Instructions}) || bare.ActionHosts == nil {
		t.Fatalf("%+v", bare)
	}
}
