package audit

import (
	"testing"

	"rehome/backend/assistant"
)

// "Everything it uses runs on this machine" was said of an assistant
// whose knowledge files were still on OpenAI (issue 31): the headline now
// says they are to bring; with them here it says what it said.
func TestMoveHeadlineSaysFilesStillOnOpenAI(t *testing.T) {
	req := Request{Features: []string{"knowledge"}}
	s := subject(t, req.Features...)
	s.AssistantID = "a1"
	s.RemoteFiles = []assistant.RemoteFile{{Tool: assistant.Knowledge, Kind: assistant.GPTFile, ID: "file-1", Type: "application/pdf"}}
	aa := buildOne(t, req, machine(24, 64), model(6), s)
	if aa.Verdict.Decision != Move {
		t.Fatalf("decision %s (%q)", aa.Verdict.Decision, aa.Verdict.Headline)
	}
	if want := "Move: everything it uses runs on this machine, once you bring the files that stayed on OpenAI."; aa.Verdict.Headline != want {
		t.Fatalf("headline %q, want %q", aa.Verdict.Headline, want)
	}
	s.RemoteFiles[0].Filled = "sha256-of-the-brought-file"
	s.KnowledgeFiles = 1
	aa = buildOne(t, req, machine(24, 64), model(6), s)
	if want := "Move: everything it uses runs on this machine."; aa.Verdict.Headline != want {
		t.Fatalf("with the file brought: headline %q, want %q", aa.Verdict.Headline, want)
	}
}
