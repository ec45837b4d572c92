package assistant

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The fixtures under testdata/gpts are GPT records as chatgpt.com's
// backend-api serves them, from public archives of the GPT store
// (testdata/gpts/SOURCES.md names each one's repository, path and commit).
// Before rehome read ChatGPT's shape, every one was refused with "name is
// empty".

func importFile(t *testing.T, svc *Service, name string) ImportReport {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata/gpts", name))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := svc.ImportJSON(data, ImportOptions{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if rep.Failed > 0 {
		t.Fatalf("%s: %+v", name, rep.Items)
	}
	return rep
}

func said(ws []string, part string) bool {
	return slices.ContainsFunc(ws, func(w string) bool { return strings.Contains(w, part) })
}

func TestGPTRecordsImportWhole(t *testing.T) {
	cases := []struct {
		file, gizmo, name string
		caps              []Capability
		actions, files    int
		warn              string
	}{
		{"gptracker_anschreiben.json", "g-9upSdCEcq", "Anschreiben Generator", []Capability{ImageGeneration, WebBrowsing}, 0, 0, "gizmo.instructions: not in this record"},
		{"canva_bearer.json", "g-alKfVrz9K", "Canva", nil, 1, 0, "waiting for its API key"},
		{"humanizer_oauth.json", "g-2azCVmXdy", "AI Humanizer", nil, 1, 0, "waiting for its OAuth client"},
		{"prompt_maker_file.json", "g-hhh4w3eov", "Prompt Maker", []Capability{WebBrowsing, CodeInterpreter, Knowledge}, 0, 1, "1 file: 1 PDF"},
		{"song_maker_files.json", "g-txEiClD5G", "Song Maker", []Capability{CodeInterpreter, ImageGeneration, Canvas, WebBrowsing, Knowledge}, 0, 9, "is listed 2 times (dalle, image_gen): kept once"},
		{"writing_assistant_canvas.json", "g-Z7GlWKlJx", "Writing Assistant", []Capability{Canvas, CodeInterpreter, ImageGeneration}, 0, 0, "gizmo.instructions: not in this record"},
	}
	svc := newService(t)
	for _, c := range cases {
		rep := importFile(t, svc, c.file)
		it := rep.Items[0]
		a := it.Assistant
		if rep.List || !it.Imported || a.GizmoID != c.gizmo || it.SourceID != c.gizmo || a.Name != c.name {
			t.Errorf("%s: %+v", c.file, it)
			continue
		}
		if c.caps == nil {
			c.caps = []Capability{}
		}
		if !slices.Equal(a.Capabilities, c.caps) {
			t.Errorf("%s: capabilities %v, want %v", c.file, a.Capabilities, c.caps)
		}
		if len(a.Actions) != c.actions || len(FilesToBring(*a)) != c.files {
			t.Errorf("%s: %d actions, %d files to bring", c.file, len(a.Actions), len(FilesToBring(*a)))
		}
		if a.Description == "" || !strings.Contains(a.Notes, "https://chatgpt.com/g/"+c.gizmo) {
			t.Errorf("%s: description %q notes %q", c.file, a.Description, a.Notes)
		}
		if !said(it.Warnings, c.warn) || !said(it.Warnings, "not kept (the store's bookkeeping") {
			t.Errorf("%s: warnings %q, want one saying %q", c.file, it.Warnings, c.warn)
		}
	}
}

// An action keeps its schema, domain, privacy URL and auth; a call waits
// only for the secret ChatGPT never shows.
func TestGPTActionsKeepTheirAuth(t *testing.T) {
	svc := newService(t)
	a := importFile(t, svc, "canva_bearer.json").Items[0].Assistant
	ac := a.Actions[0]
	if ac.Auth != "api_key" || ac.Signing != "bearer" || ac.Domain == "" || ac.Source == "" || ac.ID == "" || ac.Name == "" || !strings.Contains(ac.Schema, `"openapi"`) || ac.PrivacyURL == "" {
		t.Fatalf("canva action %+v", ac)
	}
	a = importFile(t, svc, "humanizer_oauth.json").Items[0].Assistant
	o := a.Actions[0].OAuth
	if a.Actions[0].Auth != "oauth" || o == nil || o.AuthURL != "https://plugin.gptinf.com/api/oauth" || o.TokenURL != "https://plugin.gptinf.com/api/oauth_exchange" || o.TokenExchange != "basic_auth_header" || o.PKCE || o.ClientID != "" {
		t.Fatalf("humanizer oauth %+v %+v", a.Actions[0], o)
	}
	// The GPT records of TheBigPromptLibrary give the tools entry as the
	// GPT's page showed it; the gizmo around it is the page's title.
	for _, c := range []struct{ file, signing, header string }{
		{"adobe_express_tool.txt", "header", "Authorization"},
		{"mapgpt_tools.txt", "bearer", ""},
	} {
		b, err := os.ReadFile(filepath.Join("testdata/gpts", c.file))
		if err != nil {
			t.Fatal(err)
		}
		tools := string(b)
		if !strings.HasPrefix(strings.TrimSpace(tools), `"tools"`) {
			tools = `"tools": [` + tools + `]`
		}
		rec := `{"gizmo": {"id": "g-test", "display": {"name": "` + c.file + `"}}, ` + tools + `, "files": []}`
		imp, err := ParseJSON([]byte(rec))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		ac := imp.Assistant.Actions[0]
		if ac.Auth != "api_key" || ac.Signing != c.signing || ac.Header != c.header || ac.Schema == "" {
			t.Errorf("%s: %+v", c.file, ac)
		}
	}
}

func TestStoreListsImportEachGPT(t *testing.T) {
	svc := newService(t)
	rep := importFile(t, svc, "store_list_writing.json")
	if !rep.List || rep.Imported != 3 || len(rep.Items) != 3 {
		t.Fatalf("%+v", rep)
	}
	for _, it := range rep.Items {
		if !strings.HasPrefix(it.SourceID, "g-") || it.Assistant.GizmoID != it.SourceID || it.Name == "" {
			t.Errorf("item %+v", it)
		}
	}
	// The store's 2024 pages HTML-escaped their text.
	rep = importFile(t, svc, "store_list_dalle_2024.json")
	a := rep.Items[0].Assistant
	if a.Name != "Image Edit, Recreate & Merge" || !said(rep.Items[0].Warnings, "HTML-escaped") {
		t.Fatalf("escaped name %q, warnings %q", a.Name, rep.Items[0].Warnings)
	}
	// JSON Lines of bare gizmos, as a crawler of the store wrote them: no
	// tools, so no capabilities.
	rep = importFile(t, svc, "gizmos_crawler.jsonl")
	if !rep.List || rep.Imported != 2 || rep.Items[0].Name != "Age Sage" || len(rep.Items[0].Assistant.Capabilities) != 0 {
		t.Fatalf("%+v", rep)
	}
	if w := rep.Items[0].Assistant.WelcomeMessage; w != "Seeking precise ages? I shall reveal time's details." {
		t.Fatalf("welcome %q", w)
	}
	if len(rep.Items[0].Assistant.Starters) != 4 {
		t.Fatalf("starters %q", rep.Items[0].Assistant.Starters)
	}
	// A plain array of records is a list too.
	b, _ := os.ReadFile("testdata/gpts/canva_bearer.json")
	c, _ := os.ReadFile("testdata/gpts/prompt_maker_file.json")
	rep, err := svc.ImportJSON([]byte("["+string(b)+","+string(c)+"]"), ImportOptions{})
	if err != nil || !rep.List || rep.Imported != 2 {
		t.Fatalf("array: %v %+v", err, rep)
	}
}

// A second import of a GPT updates its assistant: no copy, the action's
// id (its credentials' key) and name kept, the files brought kept.
func TestReimportUpdatesByGizmoID(t *testing.T) {
	svc := newService(t)
	first := importFile(t, svc, "canva_bearer.json").Items[0]
	data, _ := os.ReadFile("testdata/gpts/canva_bearer.json")
	var rec map[string]any
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	g := rec["gizmo"].(map[string]any)
	g["instructions"] = "Owner's view: help with designs."
	g["display"].(map[string]any)["description"] = "A newer description"
	changed, _ := json.Marshal(rec)
	rep, err := svc.ImportJSON(changed, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second := rep.Items[0]
	all, _ := svc.List()
	if len(all) != 1 || !second.Updated || second.Assistant.ID != first.Assistant.ID {
		t.Fatalf("%d assistants, updated %v", len(all), second.Updated)
	}
	a := *second.Assistant
	if a.Description != "A newer description" || a.Instructions != "Owner's view: help with designs." {
		t.Fatalf("%+v", a)
	}
	if a.Actions[0].ID != first.Assistant.Actions[0].ID || a.Actions[0].Name != first.Assistant.Actions[0].Name {
		t.Fatalf("action id %q name %q, were %q %q", a.Actions[0].ID, a.Actions[0].Name, first.Assistant.Actions[0].ID, first.Assistant.Actions[0].Name)
	}
	// The store's view again (no instructions): the owner's stay.
	rep, _ = svc.ImportJSON(data, ImportOptions{})
	if rep.Items[0].Assistant.Instructions != "Owner's view: help with designs." || !said(rep.Items[0].Warnings, "the ones imported before are kept") {
		t.Fatalf("instructions %q warnings %q", rep.Items[0].Assistant.Instructions, rep.Items[0].Warnings)
	}
}

// The files a GPT answered from are listed to bring; files brought later
// fill them, by type, so the count goes down.
func TestFilesToBringAreFilledByLaterFiles(t *testing.T) {
	svc := newService(t)
	a := *importFile(t, svc, "prompt_maker_file.json").Items[0].Assistant
	if got := FilesToBring(a); len(got) != 1 || got[0].Type != "application/pdf" || got[0].ID == "" {
		t.Fatalf("to bring %+v", got)
	}
	dir := t.TempDir()
	txt := writeFile(t, dir, "notes.txt", "not a pdf\n")
	pdf := writeFile(t, dir, "guide.pdf", "%PDF-1.4 pretend\n")
	data, _ := os.ReadFile("testdata/gpts/prompt_maker_file.json")
	rep, err := svc.ImportJSON(data, ImportOptions{Knowledge: []string{txt}})
	if err != nil {
		t.Fatal(err)
	}
	if b := FilesToBring(*rep.Items[0].Assistant); len(b) != 1 {
		t.Fatalf("a text file filled a PDF's place: %+v", b)
	}
	rep, err = svc.ImportJSON(data, ImportOptions{Knowledge: []string{pdf}})
	if err != nil {
		t.Fatal(err)
	}
	got := *rep.Items[0].Assistant
	if b := FilesToBring(got); len(b) != 0 || len(got.Knowledge) != 2 {
		t.Fatalf("to bring %+v, knowledge %d", b, len(got.Knowledge))
	}
}

func TestNotAGPTIsSaidInWords(t *testing.T) {
	_, err := ParseJSON([]byte(`{"title": "x", "items_count": 3}`))
	if err == nil || !strings.Contains(err.Error(), "is not a GPT") || !strings.Contains(err.Error(), `{"gizmo": …, "tools": …, "files": …}`) {
		t.Fatalf("%v", err)
	}
	_, err = ParseJSON([]byte(`{"title": "chat", "mapping": {}, "current_node": "a"}`))
	if err == nil || !strings.Contains(err.Error(), "rehome conversations import") {
		t.Fatalf("%v", err)
	}
	_, err = ParseJSON([]byte(`{"gizmo": {"id": "g-x", "display": {"name": " "}}}`))
	if err == nil || !strings.Contains(err.Error(), "no gizmo.display.name") {
		t.Fatalf("%v", err)
	}
}

// In the owner's view files have names: a brought file fills the
// reference of its name whatever its type; one file fills one place; a
// file taken out of the knowledge opens its place again.
func TestFillFileRefsByNameTypeAndOrder(t *testing.T) {
	a := Assistant{RemoteFiles: []RemoteFile{
		{Tool: Knowledge, Kind: GPTFile, ID: "1", Name: "Handbook.pdf", Type: "application/pdf"},
		{Tool: Knowledge, Kind: GPTFile, ID: "2", Type: "application/pdf"},
		{Tool: Knowledge, Kind: GPTFile, ID: "3"},
		{Tool: CodeInterpreter, Kind: "file", ID: "file-abc"},
	}}
	a.Knowledge = []KnowledgeFile{{Name: "other.pdf", SHA256: strings.Repeat("a", 64)}, {Name: "handbook.PDF", SHA256: strings.Repeat("b", 64)}}
	FillFileRefs(&a)
	if a.RemoteFiles[0].Filled != strings.Repeat("b", 64) || a.RemoteFiles[1].Filled != strings.Repeat("a", 64) || a.RemoteFiles[2].Filled != "" || a.RemoteFiles[3].Filled != "" {
		t.Fatalf("%+v", a.RemoteFiles)
	}
	if got := DescribeFiles(FilesToBring(a)); got != "1 file: 1 of unknown type" {
		t.Fatalf("to bring: %q", got)
	}
	a.Knowledge = a.Knowledge[1:]
	FillFileRefs(&a)
	if a.RemoteFiles[1].Filled != "" || a.RemoteFiles[2].Filled != "" || len(FilesToBring(a)) != 2 {
		t.Fatalf("after a file left: %+v", a.RemoteFiles)
	}
}

// rehome's own record of an imported GPT (`assistants show --json`)
// imports back with its g- id, so it updates the assistant.
func TestOwnRecordKeepsTheGizmoID(t *testing.T) {
	svc := newService(t)
	a := *importFile(t, svc, "canva_bearer.json").Items[0].Assistant
	b, _ := json.Marshal(a)
	rep, err := svc.ImportJSON(b, ImportOptions{})
	if err != nil || !rep.Items[0].Updated || rep.Items[0].Assistant.GizmoID != "g-alKfVrz9K" || rep.Items[0].Assistant.Actions[0].Domain == "" {
		t.Fatalf("%v %+v", err, rep.Items[0])
	}
	if all, _ := svc.List(); len(all) != 1 {
		t.Fatalf("%d assistants", len(all))
	}
}
