package audit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/assistant"
)

// importGPT imports a real GPT record (backend/assistant/testdata/gpts).
func (f *fixture) importGPT(t *testing.T, name string, knowledge ...string) assistant.Assistant {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../assistant/testdata/gpts", name))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := f.as.ImportJSON(data, assistant.ImportOptions{Knowledge: knowledge})
	if err != nil || rep.Failed > 0 {
		t.Fatalf("%s: %v %+v", name, err, rep)
	}
	return *rep.Items[0].Assistant
}

func (f *fixture) auditOf(t *testing.T, id string) (map[string]Result, string) {
	t.Helper()
	// Time costs nothing here, so the audit moves the GPT and the
	// checklist has a step per capability.
	free := 0.0
	rec, err := f.svc.Run(context.Background(), Request{AssistantIDs: []string{id}, VRAMBytes: i64(gib(24)), RAMBytes: i64(gib(64)), HourlyValue: &free})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Result{}
	for _, r := range rec.Assistants[0].Capabilities {
		got[r.ID] = r
	}
	c, err := f.svc.Checklist(id)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, s := range c.Steps {
		all = append(all, s.Title+": "+s.Detail+" "+strings.Join(s.Commands, " | "))
	}
	return got, strings.Join(all, "\n")
}

// The audit describes the GPT as it was on ChatGPT: the capabilities its
// tools were, the files it answered from by count and type (to bring),
// its actions with their auth.
func TestAuditDescribesTheGPTAsOnChatGPT(t *testing.T) {
	f := newFixture(t, nil)
	a := f.importGPT(t, "song_maker_files.json")
	got, text := f.auditOf(t, a.ID)
	for id, want := range map[string]string{
		WebBrowsing:     "searched and read the web",
		ImageGeneration: "made images",
		Canvas:          "beside the chat (canvas)",
		CodeInterpreter: "ran Python",
		Knowledge:       "answered from 9 files: 4 of unknown type, 1 text, 4 zip",
	} {
		if r, ok := got[id]; !ok || !strings.Contains(r.OnChatGPT, want) {
			t.Errorf("%s: on ChatGPT %q, want it to say %q", id, r.OnChatGPT, want)
		}
	}
	if b := got[Knowledge].Bring; !strings.Contains(b, "Bring these files: 9 files") || !strings.Contains(b, "rehome knowledge add "+a.ID) {
		t.Errorf("knowledge bring %q", b)
	}
	if !strings.Contains(text, "Bring these files: 9 files") {
		t.Errorf("the checklist does not ask for the files:\n%s", text)
	}

	a = f.importGPT(t, "humanizer_oauth.json")
	got, text = f.auditOf(t, a.ID)
	on := got[Actions].OnChatGPT
	if !strings.Contains(on, "called 1 action: gptinf-plugin (plugin.gptinf.com, OAuth sign-in (token exchange basic_auth_header))") {
		t.Errorf("actions on ChatGPT %q", on)
	}
	if !strings.Contains(text, "its OAuth client") || !strings.Contains(text, "rehome actions key "+a.ID+" gptinf-plugin --client-id ID --client-secret-stdin") {
		t.Errorf("the checklist does not say what the action waits for:\n%s", text)
	}

	a = f.importGPT(t, "canva_bearer.json")
	got, _ = f.auditOf(t, a.ID)
	if on := got[Actions].OnChatGPT; !strings.Contains(on, "an API key sent as a bearer token") {
		t.Errorf("canva on ChatGPT %q", on)
	}
}

// Files brought later fill the GPT's list: the audit asks for the rest
// only, then for none.
func TestAuditCountsFilesDown(t *testing.T) {
	f := newFixture(t, nil)
	dir := t.TempDir()
	pdf := filepath.Join(dir, "prompt guide.pdf")
	if err := os.WriteFile(pdf, []byte("%PDF-1.4 pretend\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := f.importGPT(t, "prompt_maker_file.json")
	got, _ := f.auditOf(t, a.ID)
	if !strings.Contains(got[Knowledge].Bring, "1 file: 1 PDF") {
		t.Fatalf("before: %q", got[Knowledge].Bring)
	}
	a = f.importGPT(t, "prompt_maker_file.json", pdf)
	got, _ = f.auditOf(t, a.ID)
	if got[Knowledge].Bring != "" || !strings.Contains(got[Knowledge].OnChatGPT, "1 PDF") {
		t.Fatalf("after: bring %q, on ChatGPT %q", got[Knowledge].Bring, got[Knowledge].OnChatGPT)
	}
}
