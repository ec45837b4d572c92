package core

import (
	"context"
	"strings"
	"testing"

	"rehome/backend/assistant"
	"rehome/backend/audit"
)

// The audit and its checklist say how many of a GPT's conversations moved
// from ChatGPT's data export (issue 28: "the conversations moved"), and
// how to bring them while none has: the real export (gpt-2025.json)
// holds two conversations with the finance GPT.
func TestAuditSaysTheConversationsMoved(t *testing.T) {
	c := openCore(t, t.TempDir(), Options{})
	a, err := c.Assistants().Create(assistant.Assistant{Name: "Finance tutor", GizmoID: financeGPT, Instructions: "Teach finance."})
	if err != nil {
		t.Fatal(err)
	}
	vram, ram := int64(24<<30), int64(64<<30)
	checklist := func() audit.Checklist {
		t.Helper()
		rec, err := c.Audits().Run(t.Context(), audit.Request{AssistantIDs: []string{a.ID}, VRAMBytes: &vram, RAMBytes: &ram})
		if err != nil {
			t.Fatal(err)
		}
		cl, err := c.Audits().Checklist(a.ID)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("subject: %d conversations", rec.Assistants[0].Subject.Conversations)
		return cl
	}
	if cl := checklist(); !stepSays(cl, "Bring its conversations", "rehome conversations import EXPORT.zip") {
		t.Fatalf("before the import, the checklist does not say how to bring the conversations: %+v", cl.Steps)
	}
	if _, err := c.Conversations().Import(context.Background(), gptExport, nil); err != nil {
		t.Fatal(err)
	}
	cl := checklist()
	if !stepSays(cl, "Its conversations moved", "rehome conversations list") {
		t.Fatalf("after the import: %+v", cl.Steps)
	}
	for _, s := range cl.Steps {
		if s.Title == "Its conversations moved" && !strings.Contains(s.Detail, "2 conversations with this GPT came from ChatGPT's data export") {
			t.Fatalf("the step does not count them: %q", s.Detail)
		}
	}
	// An assistant made here, not from ChatGPT, with none: no such step.
	b, err := c.Assistants().Create(assistant.Assistant{Name: "Local", Instructions: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Audits().Run(t.Context(), audit.Request{AssistantIDs: []string{b.ID}, VRAMBytes: &vram, RAMBytes: &ram}); err != nil {
		t.Fatal(err)
	}
	if cl, _ := c.Audits().Checklist(b.ID); stepSays(cl, "Bring its conversations", "") || stepSays(cl, "Its conversations moved", "") {
		t.Fatalf("a local assistant's checklist speaks of ChatGPT conversations: %+v", cl.Steps)
	}
}
