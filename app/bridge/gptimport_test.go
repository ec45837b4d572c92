package bridge

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"rehome/app"
	"rehome/backend/assistant"
)

// The window's Import a GPT goes through the bridge's methods: a preview
// that stores nothing, then the import, the same core service as `rehome
// assistants import`, reporting per GPT.
func TestImportGPTsThroughTheBridge(t *testing.T) {
	h, srv, token := bridge(t)
	data, err := os.ReadFile("../../backend/assistant/testdata/gpts/store_list_writing.json")
	if err != nil {
		t.Fatal(err)
	}
	hdr := map[string]string{TokenHeader: token}
	in, _ := json.Marshal([]any{app.AssistantImport{JSON: string(data)}})
	pv, _ := json.Marshal([]any{string(data)})
	code, body := do(t, "POST", srv.URL+"/api/call/PreviewAssistants", string(pv), hdr)
	var res struct {
		Result assistant.ImportReport `json:"result"`
	}
	rep := &res.Result
	if code != 200 || json.Unmarshal([]byte(body), &res) != nil || !rep.Preview || len(rep.Items) != 3 {
		t.Fatalf("preview: %d %.400s", code, body)
	}
	if all, _ := h.ListAssistants(); len(all) != 0 {
		t.Fatalf("the preview stored %d assistants", len(all))
	}
	if rep.Items[0].Assistant.GizmoID != "g-Z7GlWKlJx" || rep.Items[0].Updated {
		t.Fatalf("preview item %+v", rep.Items[0])
	}
	code, body = do(t, "POST", srv.URL+"/api/call/ImportAssistants", string(in), hdr)
	res.Result = assistant.ImportReport{}
	if code != 200 || json.Unmarshal([]byte(body), &res) != nil || rep.Imported != 3 || rep.Preview {
		t.Fatalf("import: %d %.400s", code, body)
	}
	// Previewed again, each would now update its assistant.
	_, body = do(t, "POST", srv.URL+"/api/call/PreviewAssistants", string(pv), hdr)
	res.Result = assistant.ImportReport{}
	if json.Unmarshal([]byte(body), &res) != nil || !rep.Items[2].Updated {
		t.Fatalf("second preview: %.400s", body)
	}
	// The snippet the window shows is the one the docs show.
	_, body = do(t, "POST", srv.URL+"/api/call/ChatGPTSnippet", "[]", hdr)
	var sn struct {
		Result string `json:"result"`
	}
	snippet := ""
	if json.Unmarshal([]byte(body), &sn) == nil {
		snippet = sn.Result
	}
	if !strings.Contains(snippet, "/backend-api/gizmos/discovery/mine") {
		t.Fatalf("snippet: %.300s", body)
	}
	doc, err := os.ReadFile("../../docs/chatgpt-export.md")
	if err != nil || !strings.Contains(string(doc), strings.TrimSpace(snippet)) {
		t.Fatalf("docs/chatgpt-export.md does not show the snippet the window shows (%v)", err)
	}
}
