package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"rehome/app"
	"rehome/backend/core"
	"rehome/backend/llm"
)

// The real 2025 export (backend/chatgptexport/testdata/README.md).
var realExport, _ = filepath.Abs("../../backend/chatgptexport/testdata/gpt-2025.json")

// openApp opens the window's App over a data folder (the CLI's process
// has ended: one of them holds the database at a time).
func openApp(t *testing.T, home string) *app.Host {
	t.Helper()
	h := app.New(app.Config{DataDir: home})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	return h
}

// sameJSON decodes the CLI's output and compares it with what the App
// returned, both as JSON.
func sameJSON[T any](t *testing.T, what, cliOut string, fromApp T) {
	t.Helper()
	var fromCLI, appRound T
	if err := json.Unmarshal([]byte(cliOut), &fromCLI); err != nil {
		t.Fatalf("%s: the CLI printed %q: %v", what, cliOut, err)
	}
	data, _ := json.Marshal(fromApp)
	json.Unmarshal(data, &appRound)
	if !reflect.DeepEqual(fromCLI, appRound) {
		t.Fatalf("%s differs between the faces:\nCLI %+v\nApp %+v", what, fromCLI, appRound)
	}
}

// TestConversationsBothFaces: each use case of core.Conversations, driven
// from the terminal (the binary) and from the window's App (the bridge's
// methods), gives the same answer: import, list, search, show as data,
// export, rename and delete, naming conversations the same ways (an id,
// the start of one, "last", the ChatGPT id).
func TestConversationsBothFaces(t *testing.T) {
	cliHome, appHome := t.TempDir(), t.TempDir()

	t.Run("import", func(t *testing.T) { bothFacesImport(t, cliHome, appHome) })
	if t.Failed() {
		return
	}
	var gpt llm.ConversationSummary
	var appShow core.ConversationView
	t.Run("list-search-show-export", func(t *testing.T) { gpt, appShow = bothFacesRead(t, cliHome) })
	if t.Failed() {
		return
	}
	t.Run("rename", func(t *testing.T) { bothFacesRename(t, cliHome, gpt) })
	t.Run("delete", func(t *testing.T) { bothFacesDelete(t, cliHome, gpt, appShow) })
}

func bothFacesImport(t *testing.T, cliHome, appHome string) {
	// import: the same export through each face, the same report.
	r := rehomeCLI(t, cliHome, "conversations", "import", realExport, "--json")
	if r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	// The bridge's App reads what the browser uploaded.
	data, _ := os.ReadFile(realExport)
	up := filepath.Join(appHome, app.UploadsDir, "gpt-2025.json")
	os.MkdirAll(filepath.Dir(up), 0o700)
	os.WriteFile(up, data, 0o600)
	h := openApp(t, appHome)
	rep, err := h.ImportConversations(up)
	h.Close()
	if err != nil || rep.Imported != 4 {
		t.Fatalf("the App's import: %+v %v", rep, err)
	}
	var cliRep core.ImportReport
	json.Unmarshal([]byte(r.stdout), &cliRep)
	if cliRep.Imported != rep.Imported || cliRep.Branches != rep.Branches || cliRep.Hidden != rep.Hidden || cliRep.PlainChats != rep.PlainChats || len(cliRep.Filed) != len(rep.Filed) {
		t.Fatalf("import reports differ:\nCLI %+v\nApp %+v", cliRep, rep)
	}
	r = rehomeCLI(t, cliHome, "conversations", "import", realExport)
	if r.code != 0 || !strings.Contains(r.stdout, "4 unchanged since an earlier import") || !strings.Contains(r.stdout, "they join its assistant once you import it") {
		t.Fatalf("the second import's report: %+v", r)
	}

}

// bothFacesRead: both faces read the CLI's data folder.
func bothFacesRead(t *testing.T, cliHome string) (llm.ConversationSummary, core.ConversationView) {
	list := rehomeCLI(t, cliHome, "conversations", "list", "--json")
	search := rehomeCLI(t, cliHome, "conversations", "search", "정규분포", "--json")
	var summaries []llm.ConversationSummary
	json.Unmarshal([]byte(list.stdout), &summaries)
	if len(summaries) != 4 {
		t.Fatalf("list: %+v", list)
	}
	gpt := summaries[0]
	for _, s := range summaries {
		if s.Title == "정규분포 설명 예시" {
			gpt = s
		}
	}
	show := rehomeCLI(t, cliHome, "conversations", "show", gpt.ID[:12], "--json")
	last := rehomeCLI(t, cliHome, "conversations", "show", "last", "--json")
	md := rehomeCLI(t, cliHome, "conversations", "export", gpt.ID)
	h := openApp(t, cliHome)
	appList, _ := h.ListConversations(0)
	appSearch, _ := h.SearchConversations("정규분포", 0)
	appShow, err := h.ShowConversation(gpt.ID[:12])
	if err != nil {
		t.Fatal(err)
	}
	appLast, _ := h.ShowConversation("last")
	appMD, _ := h.ExportConversation(gpt.ID, "md")
	bySource, err := h.ShowConversation(appShow.SourceID)
	h.Close()
	sameJSON(t, "list --json / ListConversations", list.stdout, appList)
	sameJSON(t, "search --json / SearchConversations", search.stdout, appSearch)
	sameJSON(t, "show PREFIX --json / ShowConversation", show.stdout, appShow)
	sameJSON(t, "show last --json / ShowConversation(last)", last.stdout, appLast)
	if err != nil || bySource.ID != gpt.ID {
		t.Fatalf("by its ChatGPT id: %v", err)
	}
	if md.stdout != appMD || !strings.HasPrefix(md.stdout, "# 정규분포 설명 예시") {
		t.Fatalf("export differs: CLI %d bytes, App %d", len(md.stdout), len(appMD))
	}

	// The data: turns with role and text, cells with their output, the GPT.
	if appShow.GizmoID != "g-67ee11f7587881919c3ba1c99a9d6b39" || appShow.Turns[0].Role != "user" || appShow.Turns[1].Role != "assistant" {
		t.Fatalf("show: %+v", appShow.Turns[:2])
	}
	var cell *core.ViewCell
	for _, tu := range appShow.Turns {
		if len(tu.Cells) > 0 {
			cell = &tu.Cells[0]
			break
		}
	}
	if cell == nil || !strings.Contains(cell.Code, "matplotlib") || len(appShow.Alternatives) != 1 {
		t.Fatalf("cells %+v, alternatives %d", cell, len(appShow.Alternatives))
	}

	return gpt, appShow
}

// bothFacesRename: renamed in the terminal, seen by the window; and back.
func bothFacesRename(t *testing.T, cliHome string, gpt llm.ConversationSummary) {
	if r := rehomeCLI(t, cliHome, "conversations", "rename", gpt.ID[:10], "Normal", "distribution"); r.code != 0 {
		t.Fatalf("rename: %+v", r)
	}
	h := openApp(t, cliHome)
	c, _ := h.GetConversation(gpt.ID)
	renamed, err := h.RenameConversation("last", "Newest, renamed in the window")
	h.Close()
	if c.Title != "Normal distribution" || err != nil {
		t.Fatalf("the window sees %q after the terminal's rename (%v)", c.Title, err)
	}
	if r := rehomeCLI(t, cliHome, "conversations", "show", "last", "--json"); !strings.Contains(r.stdout, `"title": "Newest, renamed in the window"`) || renamed.ID == "" {
		t.Fatalf("the terminal after the window's rename: %s", r.stdout)
	}

}

// bothFacesDelete: the terminal deletes by the ChatGPT id, the window by
// "last"; both list the same two left.
func bothFacesDelete(t *testing.T, cliHome string, gpt llm.ConversationSummary, appShow core.ConversationView) {
	if r := rehomeCLI(t, cliHome, "conversations", "rm", appShow.SourceID); r.code != 0 {
		t.Fatalf("rm: %+v", r)
	}
	h := openApp(t, cliHome)
	if _, err := h.GetConversation(gpt.ID); err == nil {
		t.Fatal("the window still has the conversation the terminal deleted")
	}
	err := h.DeleteConversation("last")
	appList, _ := h.ListConversations(0)
	h.Close()
	list := rehomeCLI(t, cliHome, "conversations", "list", "--json")
	sameJSON(t, "list after both deletes", list.stdout, appList)
	if err != nil || len(appList) != 2 {
		t.Fatalf("after deleting two: %d left, %v", len(appList), err)
	}
}
