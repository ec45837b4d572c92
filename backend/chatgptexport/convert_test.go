package chatgptexport

import (
	"errors"
	"io"
	"strings"
	"testing"

	"rehome/backend/llm"
)

// readAll converts every conversation of an export.
func readAll(t *testing.T, path string, lim Limits) []*Converted {
	t.Helper()
	e, err := Open(path, lim)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var out []*Converted
	for {
		r, err := e.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		cv, err := Convert(r, lim)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, cv)
	}
}

func byTitle(t *testing.T, cvs []*Converted, title string) *llm.Conversation {
	t.Helper()
	for _, cv := range cvs {
		if cv.Conversation.Title == title {
			return cv.Conversation
		}
	}
	t.Fatalf("no conversation %q", title)
	return nil
}

// TestRealGPTConversation: a real 2025 export of a GPT conversation with
// Code Interpreter keeps its title, times, gizmo id, the branch the user was
// on with the other one beside it, the code and its output as cells, the
// plots and uploads as files to take from the zip, and none of the hidden
// messages.
func TestRealGPTConversation(t *testing.T) {
	cvs := readAll(t, "testdata/gpt-2025.json", Limits{})
	if len(cvs) != 4 {
		t.Fatalf("%d conversations, want 4", len(cvs))
	}
	c := byTitle(t, cvs, "정규분포 설명 예시")
	if c.GizmoID != "g-67ee11f7587881919c3ba1c99a9d6b39" || c.Source != "chatgpt" || c.SourceID != "689bd1a3-8df8-8329-8102-f30bbc4e1681" {
		t.Fatalf("gizmo %q source %q %q", c.GizmoID, c.Source, c.SourceID)
	}
	if got := c.Created.Format("2006-01-02T15:04:05"); got != "2025-08-12T23:43:33" {
		t.Errorf("created %s", got)
	}
	if !c.Updated.After(c.Created) || c.SourceUpdated == nil {
		t.Errorf("updated %s, source updated %v", c.Updated, c.SourceUpdated)
	}
	if len(c.Exchanges) != 12 {
		t.Fatalf("%d exchanges on the current branch, want 12", len(c.Exchanges))
	}
	if q := c.Exchanges[1].Question; !strings.HasPrefix(q, "실제 그림 예시로 시각화해서 보여주되 범례는 영문으로") {
		t.Errorf("the second question is not the edited one the user kept: %q", q)
	}
	if len(c.Alternatives) != 1 || c.Alternatives[0].From != 1 || !strings.HasPrefix(c.Alternatives[0].Exchanges[0].Question, "실제 그림 예시로 시각화해서 보여줘") {
		t.Fatalf("the edited question's first version is not kept beside it: %+v", c.Alternatives)
	}
	cells := c.Exchanges[1].Cells()
	if len(cells) != 1 || !strings.Contains(cells[0].Code, "import matplotlib") || cells[0].Via != Via {
		t.Fatalf("the cell: %+v", cells)
	}
	if len(cells[0].Result.Files) != 1 || cells[0].Result.Files[0].Kind != "plot" || !strings.HasPrefix(cells[0].Result.Files[0].Path, assetPrefix+"file-") {
		t.Fatalf("the cell's plot: %+v", cells[0].Result.Files)
	}
	if len(c.Exchanges[0].Attachments) != 1 || c.Exchanges[0].Attachments[0].Kind != "image" {
		t.Errorf("the uploaded picture: %+v", c.Exchanges[0].Attachments)
	}
	if a := c.Exchanges[0].Answer; !strings.HasPrefix(a, "좋아요, 이 그림은 **정규분포(종모양 곡선)**") {
		t.Errorf("the first answer: %.80q", a)
	}

	d := byTitle(t, cvs, "백테스트 성과 비교")
	if d.GizmoID != "" {
		t.Errorf("a plain chat got gizmo %q", d.GizmoID)
	}
	for _, x := range d.Exchanges {
		for _, s := range []string{x.Question, x.Answer} {
			if strings.Contains(s, "The user provided the additional info about how they would like you to respond") {
				t.Fatal("the hidden custom instructions show as a message")
			}
		}
	}
	var out string
	for _, x := range d.Exchanges {
		for _, cell := range x.Cells() {
			out += cell.Result.Stdout
		}
	}
	if out == "" {
		t.Error("the cell's execution_output is lost")
	}
	if g := byTitle(t, cvs, "진화와 정의의 기준"); g.GizmoID != "g-B3hgivKK9" || len(g.Exchanges) != 1 {
		t.Errorf("the store GPT's chat: %q, %d exchanges", g.GizmoID, len(g.Exchanges))
	}
}

// TestReal2023Export: a June 2023 export (byte for byte): a regenerated
// answer and an edited question are alternatives of the branch the user
// was on; browsing is a tool call with what the page gave; ids are stable
// across two reads.
func TestReal2023Export(t *testing.T) {
	a := readAll(t, "testdata/export-2023.json", Limits{})
	b := readAll(t, "testdata/export-2023.json", Limits{})
	for i := range a {
		if a[i].Conversation.ID != b[i].Conversation.ID || len(a[i].Conversation.ID) != 26 {
			t.Fatalf("ids %q and %q: an import twice would copy", a[i].Conversation.ID, b[i].Conversation.ID)
		}
	}
	logo := byTitle(t, a, "Logo design for Pieterkuppens.net.")
	if len(logo.Exchanges) != 7 || len(logo.Alternatives) != 1 || logo.Alternatives[0].From != 3 {
		t.Fatalf("%d exchanges, alternatives %+v", len(logo.Exchanges), logo.Alternatives)
	}
	alt := logo.Alternatives[0].Exchanges[0]
	if alt.Question != logo.Exchanges[3].Question || alt.Answer == logo.Exchanges[3].Answer || alt.Answer == "" {
		t.Fatalf("the regenerated answer is not kept as another branch of the same question")
	}
	web := byTitle(t, a, "Improve Website Recommendations.")
	var tools []llm.ToolUse
	for _, x := range web.Exchanges {
		for _, tu := range x.Turns {
			tools = append(tools, tu.Tools...)
		}
	}
	if len(tools) == 0 || tools[0].Name != "browser" || tools[0].Fed == "" {
		t.Fatalf("browsing: %+v", tools)
	}
	if !strings.HasPrefix(web.Exchanges[1].Answer, "Based on the information available from the main p") {
		t.Errorf("answer after browsing: %.60q", web.Exchanges[1].Answer)
	}
}
