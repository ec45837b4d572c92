package core

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rehome/backend/assistant"
	"rehome/backend/chatgptexport"
	"rehome/backend/llm"
	"rehome/backend/store"
)

const gptExport = "../chatgptexport/testdata/gpt-2025.json"

// The GPT most of gpt-2025.json's conversations were held with.
const financeGPT = "g-67ee11f7587881919c3ba1c99a9d6b39"

// TestImportTwiceMakesNoCopies: the same export imported twice keeps one
// record per conversation; the second import finds them unchanged.
func TestImportTwiceMakesNoCopies(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	svc := c.Conversations()
	var events int
	rep, err := svc.Import(context.Background(), gptExport, func(ImportProgress) { events++ })
	if err != nil || rep.Imported != 4 || rep.Replaced != 0 || rep.Skipped != 0 || rep.Branches != 1 || events == 0 {
		t.Fatalf("first import: %+v %v (%d events)", rep, err, events)
	}
	rep, err = svc.Import(context.Background(), gptExport, nil)
	if err != nil || rep.Imported != 0 || rep.Unchanged != 4 {
		t.Fatalf("second import: %+v %v", rep, err)
	}
	if n, _ := c.Store().Count(store.Conversations); n != 4 {
		t.Fatalf("%d conversations kept after two imports, want 4", n)
	}
}

// TestImportedGPTAdoptsItsConversations: conversations imported before
// their GPT are filed under it once an assistant with its gizmo id is
// there; those imported after it are filed at once; an ask that
// continues one gets that assistant.
func TestImportedGPTAdoptsItsConversations(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	svc := c.Conversations()
	rep, err := svc.Import(context.Background(), gptExport, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Filed) != 2 || rep.PlainChats != 1 {
		t.Fatalf("filed %+v, plain %d", rep.Filed, rep.PlainChats)
	}
	list, _ := svc.List(0)
	for _, s := range list {
		if s.AssistantName != "" {
			t.Fatalf("filed under %q before any assistant was imported", s.AssistantName)
		}
	}
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Finance tutor", GizmoID: financeGPT, Instructions: "Teach finance."})
	if err != nil {
		t.Fatal(err)
	}
	list, _ = svc.List(0)
	filed := 0
	for _, s := range list {
		if s.GizmoID == financeGPT {
			if s.AssistantID != a.ID || s.AssistantName != "Finance tutor" {
				t.Fatalf("%q is not filed under the GPT imported after it: %+v", s.Title, s)
			}
			filed++
		} else if s.AssistantID != "" {
			t.Fatalf("%q (gizmo %q) filed under %q", s.Title, s.GizmoID, s.AssistantName)
		}
	}
	if filed != 2 {
		t.Fatalf("%d conversations filed under the GPT, want 2", filed)
	}
	got, err := svc.Get(list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := svc.assistantOf(financeGPT); id != a.ID {
		t.Fatalf("an ask continuing the GPT's conversation would not get its assistant: %q", id)
	}
	_ = got
	// Imported after the assistant: filed at once, and said so.
	dir := t.TempDir()
	c2 := openCore(t, dir, Options{})
	c2.Assistants().Create(assistant.Assistant{Name: "Finance tutor", GizmoID: financeGPT, Instructions: "x"})
	rep, _ = c2.Conversations().Import(context.Background(), gptExport, nil)
	for _, f := range rep.Filed {
		if f.GizmoID == financeGPT && (f.AssistantName != "Finance tutor" || f.Conversations != 2) {
			t.Fatalf("report: %+v", f)
		}
	}
}

// TestResolveNamesEveryWay: an id, "last", the start of an id and the
// ChatGPT conversation id name the same conversation.
func TestResolveNamesEveryWay(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	svc := c.Conversations()
	if _, err := svc.Import(context.Background(), gptExport, nil); err != nil {
		t.Fatal(err)
	}
	list, _ := svc.List(0)
	newest := list[0]
	v, err := svc.View(newest.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{newest.ID, "last", newest.ID[:10], v.SourceID} {
		if id, err := svc.Resolve(ref); err != nil || id != newest.ID {
			t.Errorf("%q: %q %v", ref, id, err)
		}
	}
	if _, err := svc.Resolve("zzzzzzzz"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown id: %v", err)
	}
}

// TestImportZipTakesItsFiles: the images a conversation points at come
// from the zip into the conversation's folder; deleting the conversation removes them.
func TestImportZipTakesItsFiles(t *testing.T) {
	dir := t.TempDir()
	c := openCore(t, dir, Options{})
	data, _ := os.ReadFile(gptExport)
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 500)...)
	zp := filepath.Join(t.TempDir(), "export.zip")
	f, _ := os.Create(zp)
	zw := zip.NewWriter(f)
	w, _ := zw.Create("conversations.json")
	w.Write(data)
	w, _ = zw.Create("file-TtBb1mZjSoJXG51L5fZeGn-normal.png")
	w.Write(png)
	zw.Close()
	f.Close()
	rep, err := c.Conversations().Import(context.Background(), zp, nil)
	if err != nil || rep.Files != 1 || rep.Format != "zip" {
		t.Fatalf("%+v %v", rep, err)
	}
	var conv *llm.Conversation
	list, _ := c.Conversations().List(0)
	for _, s := range list {
		if s.Title == "정규분포 설명 예시" {
			conv, _ = c.Conversations().Get(s.ID)
		}
	}
	att := conv.Exchanges[0].Attachments[0]
	// Named as the user uploaded it (the message's attachment metadata),
	// kept as the zip names it.
	if att.Name != "aeaa93d3-1d1a-4dff-a8ec-216429232fe2.png" || att.Path != filepath.Join(dir, ConversationsDir, conv.ID, "file-TtBb1mZjSoJXG51L5fZeGn-normal.png") {
		t.Fatalf("attachment %+v", att)
	}
	if got, _ := os.ReadFile(att.Path); !bytes.Equal(got, png) {
		t.Fatal("the file from the zip differs")
	}
	if cells := conv.Exchanges[1].Cells(); cells[0].Result.Files[0].Path != "" {
		t.Fatalf("a plot the zip lacks has a path: %+v", cells[0].Result.Files[0])
	}
	if !strings.Contains(strings.Join(conv.Notes, " "), "not in the export") {
		t.Errorf("notes %q", conv.Notes)
	}
	if err := c.Conversations().Delete(conv.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(att.Path)); !os.IsNotExist(err) {
		t.Fatalf("the conversation's files outlive it: %v", err)
	}
}

// TestImportRefusedPartWayKeepsWholeConversations: an export cut short
// after 150 conversations keeps those 150, each whole (one transaction
// per batch), and the report and the error say where it stopped.
func TestImportRefusedPartWayKeepsWholeConversations(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&b, `{"id":"conv-%03d","title":"t%d","create_time":%d,"update_time":%d,"mapping":{"r":{"id":"r","children":["u"]},"u":{"id":"u","parent":"r","children":["a"],"message":{"author":{"role":"user"},"content":{"content_type":"text","parts":["question %d"]}}},"a":{"id":"a","parent":"u","message":{"author":{"role":"assistant"},"content":{"content_type":"text","parts":["answer %d"]}}}},"current_node":"a"},`, i, i, 1700000000+i, 1700000100+i, i, i)
	}
	b.WriteString(`{"id":"cut","title":"cut short","mapping":{"r":{"id":"r","chil`)
	p := filepath.Join(t.TempDir(), "conversations.json")
	os.WriteFile(p, []byte(b.String()), 0o600)
	rep, err := c.Conversations().Import(context.Background(), p, nil)
	if !errors.Is(err, chatgptexport.ErrNotExport) || rep == nil || rep.Imported != 150 || !strings.Contains(rep.Stopped, "the 150 imported before stay") {
		t.Fatalf("%+v %v", rep, err)
	}
	n := 0
	err = c.Store().Each(store.Conversations, func(id string, raw []byte) (bool, error) {
		cv, err := llm.GetConversation(c.Store(), id)
		if err != nil || len(cv.Exchanges) != 1 || !strings.HasPrefix(cv.Exchanges[0].Answer, "answer ") {
			return false, fmt.Errorf("%s is not whole: %v", id, err)
		}
		n++
		return true, nil
	})
	if err != nil || n != 150 {
		t.Fatalf("%d kept: %v", n, err)
	}
}
