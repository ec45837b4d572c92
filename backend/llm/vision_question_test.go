package llm

import (
	"strings"
	"testing"
)

// The question's images go with its message as image_url parts (OpenAI's
// shape) on the wire of the replayed Ollama exchange, once: the later
// turns of the question carry the cell's output, not the images again.
func TestQuestionImagesOnTheWire(t *testing.T) {
	r := newReplay(t, "ollama-tools")
	l, _ := newLoop(t, r, &fakeExec{res: salesResult}, "qwen2.5vl:7b")
	l.Vision = true
	url := "data:image/png;base64,iVBORw0KGgo="
	l.Images, l.ImageNames = []string{url}, []string{"chart.png"}
	tr := ask(t, l, "What does this chart show?")
	if tr.Stopped != StopAnswered || len(tr.Images) != 1 || tr.Images[0] != "chart.png" {
		t.Fatalf("stopped %s %s; images %v", tr.Stopped, tr.Error, tr.Images)
	}
	if !strings.Contains(r.bodies[0], `{"type":"text","text":"What does this chart show?"},{"type":"image_url","image_url":{"url":"`+url+`"}}`) {
		t.Fatalf("the first request has no image_url part:\n%s", r.bodies[0])
	}
	sent := 0
	for _, m := range r.requests()[len(r.bodies)-1].Messages {
		sent += len(m.Images)
	}
	if sent != 1 {
		t.Fatalf("the last request carries %d images, want the question's one", sent)
	}
}
