package core

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rehome/backend/llm"
	"rehome/backend/localmodels"
	"rehome/internal/testsupport/llamatest"
	"rehome/internal/testsupport/llmtest"
	"rehome/internal/testsupport/tinymodel"
)

func temp(v float64) *float64 { return &v }

// A model's settings are kept in the database file: saved, read back by a
// core opened afresh on the same folder, each field held to its range
// (nothing kept of a refused one), and forgotten when nothing is set.
func TestModelSettingsKept(t *testing.T) {
	dir := t.TempDir()
	c := New(dir, Options{})
	if err := c.Open(); err != nil {
		t.Fatal(err)
	}
	prefs := c.ModelSettings()
	if _, err := prefs.Save("qwen2.5:7b", ModelSettings{Temperature: temp(0.2), Context: 4096, SystemPrompt: "  Answer in French.  "}); err != nil {
		t.Fatal(err)
	}
	if _, err := prefs.Save("other", ModelSettings{Temperature: temp(1.5)}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []ModelSettings{{Temperature: temp(2.5)}, {Temperature: temp(-0.1)}, {Context: 100}, {Context: MaxModelContext + 1}, {SystemPrompt: strings.Repeat("x", MaxSystemPromptB+1)}} {
		if _, err := prefs.Save("qwen2.5:7b", bad); !errors.Is(err, ErrModelSettings) {
			t.Fatalf("%+v saved: %v", bad, err)
		}
	}
	if _, err := prefs.Save(" ", ModelSettings{Context: 4096}); !errors.Is(err, ErrModelSettings) {
		t.Fatalf("no model name: %v", err)
	}
	c.Close()

	c = openCore(t, dir, Options{})
	got, err := c.ModelSettings().Get("qwen2.5:7b")
	if err != nil || got.Temperature == nil || *got.Temperature != 0.2 || got.Context != 4096 || got.SystemPrompt != "Answer in French." {
		t.Fatalf("read back: %+v %v", got, err)
	}
	if _, err := c.ModelSettings().Save("other", ModelSettings{}); err != nil {
		t.Fatal(err)
	}
	all, err := c.ModelSettings().All()
	if err != nil || len(all) != 1 || all["other"] != (ModelSettings{}) {
		t.Fatalf("after forgetting other: %+v %v", all, err)
	}
}

// The saved settings reach the wire: a question to a recorded server
// (Ollama's shape) with the model's temperature and system prompt saved
// sends "temperature" and the prompt after the assistant's instructions;
// a face's value (a flag) goes over the saved one for that question only.
func TestModelSettingsOnTheWire(t *testing.T) {
	needPodmanCore(t)
	c := openCore(t, t.TempDir(), Options{})
	if _, err := c.ModelSettings().Save("qwen2.5:7b", ModelSettings{Temperature: temp(0.25), SystemPrompt: "Answer in French."}); err != nil {
		t.Fatal(err)
	}
	as, err := c.Assistants().Create(assistantNamed("Sales Helper"))
	if err != nil {
		t.Fatal(err)
	}
	ask := func(over ModelSettings) (map[string]any, *Ask) {
		t.Helper()
		rec := llmtest.Replay(t, filepath.Join("..", "llm", "testdata"), "escapes-answer")
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		a, err := c.Asks().Prepare(ctx, AskRequest{Server: rec.Base(), Model: "qwen2.5:7b", AssistantID: as.ID, Question: "Hello?", Settings: over})
		if err != nil {
			t.Fatal(err)
		}
		if tr := a.Run(ctx, nil); tr.Stopped != llm.StopAnswered {
			t.Fatalf("answer: %s %s", tr.Stopped, tr.Error)
		}
		c.Asks().Close(context.Background(), a.Conversation.ID)
		bodies := rec.Bodies()
		if len(bodies) != 1 {
			t.Fatalf("%d requests", len(bodies))
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(bodies[0]), &body); err != nil {
			t.Fatal(err)
		}
		return body, a
	}
	body, a := ask(ModelSettings{})
	system := body["messages"].([]any)[0].(map[string]any)
	sys, _ := system["content"].(string)
	if body["temperature"] != 0.25 || system["role"] != "system" || !strings.Contains(sys, "Answer from the files.") ||
		strings.Index(sys, "Answer in French.") < strings.Index(sys, "Answer from the files.") {
		t.Fatalf("on the wire: temperature %v, system %q", body["temperature"], sys)
	}
	if a.Context != 0 || a.Settings.Temperature == nil || *a.Settings.Temperature != 0.25 {
		t.Fatalf("the ask's settings: %+v context %d", a.Settings, a.Context)
	}
	// The answer says what it was asked with (no context: the server's).
	if used := a.Conversation.Exchanges[0].Settings; used == nil || *used.Temperature != 0.25 || used.SystemPrompt != "Answer in French." || used.Context != 0 {
		t.Fatalf("the transcript's settings: %+v", used)
	}
	body, _ = ask(ModelSettings{Temperature: temp(0.9)})
	if body["temperature"] != 0.9 {
		t.Fatalf("the flag's temperature: %v", body["temperature"])
	}
	if saved, _ := c.ModelSettings().Get("qwen2.5:7b"); *saved.Temperature != 0.25 {
		t.Fatalf("the flag changed the saved temperature: %v", *saved.Temperature)
	}
}

// A carried model's server starts with the model's saved context length
// and answers at its saved temperature: the tiny model carried, its
// context saved as 3072 and its temperature 0.3, a question to it starts
// the real llama-server with -c 3072 (its /props says n_ctx 3072), and the
// slot that answered ran at 0.3 (its /slots); the transcript keeps both.
func TestModelSettingsCarriedContext(t *testing.T) {
	needPodmanCore(t)
	bin := llamatest.Need(t)
	t.Setenv("REHOME_LLAMA_SERVER", bin)
	gguf := llamatest.Model(t, bin, t.TempDir(), tinymodel.DefaultScript("sales.csv", "region", "revenue"))
	c := openCore(t, t.TempDir(), Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	m, err := c.LocalModels().Add(ctx, gguf, localmodels.AddOptions{Name: "tiny-chat"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ModelSettings().Save(m.Name, ModelSettings{Context: 3072, Temperature: temp(0.3)}); err != nil {
		t.Fatal(err)
	}
	lim, err := c.Runs().Saved()
	if err != nil {
		t.Fatal(err)
	}
	lim.Timeout = 2 * time.Minute // a loaded machine takes long to import pandas
	if _, err := c.Runs().Save(lim); err != nil {
		t.Fatal(err)
	}
	a, err := c.Asks().Prepare(ctx, AskRequest{Model: m.Name, Question: "Summarise sales.csv.", Files: []string{filepath.Join("..", "llm", "testdata", "sales.csv")}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Context != 3072 || a.conn.Lease == nil {
		t.Fatalf("the carried model started with context %d", a.Context)
	}
	lease := a.conn.Lease
	get := func(path string, v any) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(lease.URL, "/v1")+path, nil)
		req.Header.Set("Authorization", "Bearer "+lease.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("llama-server's %s: %v %s", path, err, raw)
		}
	}
	var props struct {
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if get("/props", &props); props.Settings.NCtx != 3072 {
		t.Fatalf("llama-server's /props: n_ctx %d", props.Settings.NCtx)
	}
	// The question, asked: the server's slot ran it at the saved temperature.
	tr := a.Run(ctx, nil)
	t.Cleanup(func() { c.Asks().Close(context.Background(), a.Conversation.ID) })
	if tr.Stopped != llm.StopAnswered || tr.Settings == nil || tr.Settings.Context != 3072 || *tr.Settings.Temperature != 0.3 {
		t.Fatalf("the answer: %s %s, asked with %+v", tr.Stopped, tr.Error, tr.Settings)
	}
	var slots []struct {
		Params struct {
			Temperature float64 `json:"temperature"`
		} `json:"params"`
	}
	if get("/slots", &slots); len(slots) == 0 || slots[0].Params.Temperature < 0.299 || slots[0].Params.Temperature > 0.301 {
		t.Fatalf("llama-server's /slots: %+v", slots)
	}
}
