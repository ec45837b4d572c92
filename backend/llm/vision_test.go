package llm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A model that reads images is shown the plot a cell drew, as an
// image_url part with a data: URL on the next turn; a text model gets only
// "plot saved: … (shown to the user)". Against the replayed Ollama (tool
// call) and a replayed model without tools (fenced code), with the bounds
// on how many figures go.
func TestVisionModelSeesPlots(t *testing.T) {
	dir := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\nrehome-test-plot")
	var files []OutFile
	for i := 1; i <= 3; i++ {
		p := filepath.Join(dir, fmt.Sprintf("plot-%03d.png", i))
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, OutFile{Name: filepath.Base(p), Kind: "plot", Size: int64(len(png)), Path: p})
	}
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	for _, tc := range []struct {
		scenario, model string
		vision          bool
		plots           int
	}{
		{"ollama-tools", "qwen2.5vl:7b", true, 1},
		{"ollama-tools", "qwen2.5:7b", false, 1},
		{"ollama-tools", "qwen2.5vl:7b", true, 3}, // at most MaxImagesPerCell go
		{"ollama-no-tools", "gemma3:4b", true, 1},
		{"ollama-no-tools", "gemma2:2b", false, 1},
	} {
		t.Run(fmt.Sprintf("%s-%s-%d", tc.scenario, tc.model, tc.plots), func(t *testing.T) {
			r := newReplay(t, tc.scenario)
			res := salesResult
			res.Files = files[:tc.plots]
			l, _ := newLoop(t, r, &fakeExec{res: res}, tc.model)
			l.Vision = tc.vision
			tr := ask(t, l, "Which region had the most revenue?")
			if tr.Stopped != StopAnswered || tr.Vision != tc.vision {
				t.Fatalf("stopped %q %q %q", tr.Stopped, tr.Note, tr.Error)
			}
			last := r.bodies[len(r.bodies)-1]
			msgs := r.requests()[len(r.bodies)-1].Messages
			var images []string
			for _, m := range msgs {
				images = append(images, m.Images...)
			}
			want := 0
			if tc.vision {
				want = min(tc.plots, MaxImagesPerCell)
			}
			if len(images) != want || strings.Count(last, `"type":"image_url"`) != want {
				t.Fatalf("%d images sent (%d image_url parts), want %d: %.2000s", len(images), strings.Count(last, `"type":"image_url"`), want, last)
			}
			for _, u := range images {
				if u != dataURL {
					t.Errorf("image %.60s…, want the plot's PNG", u)
				}
			}
			if !strings.Contains(last, "plot saved: plot-001.png (shown to the user)") {
				t.Errorf("the model was not told the plot was saved: %.2000s", last)
			}
			if tc.vision != strings.Contains(last, "attached to the next message") {
				t.Errorf("vision %v, but the output says otherwise: %.2000s", tc.vision, last)
			}
			// The first request (before any cell) never carries an image.
			if strings.Contains(r.bodies[0], "image_url") {
				t.Errorf("first request has an image")
			}
		})
	}
}

// At most MaxImagesPerQuestion figures over all cells of one question.
func TestVisionBoundPerQuestion(t *testing.T) {
	dir := t.TempDir()
	var files []OutFile
	for i := 0; i < 10; i++ {
		p := filepath.Join(dir, fmt.Sprintf("p%d.png", i))
		os.WriteFile(p, []byte("\x89PNG"), 0o644)
		files = append(files, OutFile{Name: filepath.Base(p), Kind: "plot", Size: 4, Path: p})
	}
	big := filepath.Join(dir, "big.png")
	os.WriteFile(big, make([]byte, MaxImageBytes+1), 0o644)
	if u, _ := plotImages([]OutFile{{Name: "big.png", Kind: "plot", Size: MaxImageBytes + 1, Path: big}}, 4); len(u) != 0 {
		t.Errorf("a figure over %d bytes was sent", MaxImageBytes)
	}
	left := MaxImagesPerQuestion
	total := 0
	for c := 0; c < 5; c++ {
		u, _ := plotImages(files[c*2:c*2+2], left)
		left -= len(u)
		total += len(u)
	}
	if total != MaxImagesPerQuestion {
		t.Errorf("%d figures over five cells, want %d", total, MaxImagesPerQuestion)
	}
}

// A message without images is sent as before (content a string); with
// images, as parts; both read back the same.
func TestMessageWire(t *testing.T) {
	plain := Message{Role: "tool", Content: "out", ToolCallID: "c1", Name: "python", Reasoning: "never sent"}
	data, err := json.Marshal(plain)
	if err != nil || string(data) != `{"role":"tool","content":"out","tool_call_id":"c1","name":"python"}` {
		t.Fatalf("plain: %v %s", err, data)
	}
	img := Message{Role: "user", Content: "see", Images: []string{"data:image/png;base64,AA"}}
	data, err = json.Marshal(img)
	if err != nil || string(data) != `{"content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA"}}],"role":"user"}` {
		t.Fatalf("images: %v %s", err, data)
	}
	var back Message
	if err := json.Unmarshal(data, &back); err != nil || back.Content != "see" || len(back.Images) != 1 || back.Role != "user" {
		t.Fatalf("read back: %v %+v", err, back)
	}
	if err := json.Unmarshal([]byte(`{"role":"assistant","content":null,"tool_calls":[{"id":"x","type":"function","function":{"name":"python","arguments":"{}"}}]}`), &back); err != nil || back.Content != "" || len(back.ToolCalls) != 1 || back.Images != nil {
		t.Fatalf("null content: %v %+v", err, back)
	}
}
