package audit

import (
	"slices"
	"strings"
	"testing"

	"rehome/backend/assistant"
)

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }

func model(vramGiB float64) *Model {
	return &Model{Name: "Test 7B", Tag: "test:7b", VRAMBytes: gib(vramGiB), Tools: true}
}

func machine(vram, ram float64) Machine {
	return Machine{VRAMBytes: gib(vram), RAMBytes: gib(ram), VRAMSource: "given", RAMSource: "given"}
}

func subject(t *testing.T, features ...string) Subject {
	t.Helper()
	s, err := ManualSubject("GPT", features, false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func buildOne(t *testing.T, req Request, m Machine, mod *Model, s Subject) AssistantAudit {
	t.Helper()
	rec, err := Build(DefaultCatalog(), req, m, mod, []Subject{s})
	if err != nil {
		t.Fatal(err)
	}
	return rec.Assistants[0]
}

func category(aa AssistantAudit, id string) Category {
	for _, r := range aa.Capabilities {
		if r.ID == id {
			return r.Category
		}
	}
	return ""
}

// The issue's own example: code interpreter, image generation and actions
// on an 8 GiB machine with no network.
func TestIssueExampleAirGapped8GiB(t *testing.T) {
	req := Request{Features: []string{"code_interpreter", "image_generation", "actions"}, AirGapped: true}
	aa := buildOne(t, req, machine(8, 32), model(6), subject(t, req.Features...))
	want := map[string]Category{Instructions: Ports, CodeInterpreter: Hosts, ImageGeneration: Rebuild, Actions: DoesNotPort}
	for id, c := range want {
		if got := category(aa, id); got != c {
			t.Errorf("%s: %s, want %s", id, got, c)
		}
	}
	if aa.Verdict.Decision != MoveInPart || !slices.Equal(aa.Verdict.StaysBehind, []string{Actions}) {
		t.Fatalf("verdict %s leaving %v, want move_in_part leaving actions", aa.Verdict.Decision, aa.Verdict.StaysBehind)
	}
	if aa.Verdict.Headline != "Move in part: actions (OpenAPI) stays behind." {
		t.Errorf("headline %q", aa.Verdict.Headline)
	}
	deciding := 0
	for _, r := range aa.Verdict.Reasons {
		if r.Deciding {
			deciding++
		}
	}
	if deciding == 0 {
		t.Error("no deciding reason")
	}
}

func TestVerdicts(t *testing.T) {
	cases := []struct {
		name     string
		req      Request
		m        Machine
		mod      *Model
		features []string
		want     Decision
		behind   []string
		reason   string // a deciding reason contains it
	}{
		{"all ports, cheap", Request{}, machine(24, 64), model(11), []string{"conversation_starters"}, Move, []string{}, "costs less than the subscription"},
		{"rebuild within budget", Request{HoursAvailable: f64(20), HourlyValue: f64(5)}, machine(24, 64), model(11), []string{"knowledge", "code_interpreter"}, Move, []string{}, "costs less"},
		{"hours over budget leave rebuilds behind", Request{HoursAvailable: f64(2)}, machine(24, 64), model(11), []string{"conversation_starters", "file_uploads", "voice"}, MoveInPart, []string{"voice"}, "more than the 2 h you set"},
		{"hours over budget and only instructions left", Request{HoursAvailable: f64(1)}, machine(24, 64), model(11), []string{"voice"}, Keep, []string{"voice"}, "more than the 1 h you set"},
		{"work costs more than the subscription", Request{HourlyValue: f64(100), SubscriptionPerMonth: f64(20)}, machine(24, 64), model(11), []string{"knowledge", "web_browsing", "voice"}, Keep, []string{}, "costs more than the subscription"},
		{"data local overrides the cost", Request{DataMustStayLocal: true, HourlyValue: f64(100), SubscriptionPerMonth: f64(20)}, machine(24, 64), model(11), []string{"knowledge", "web_browsing", "voice"}, Move, []string{}, "may not leave this machine"},
		{"data local, something does not port", Request{DataMustStayLocal: true}, machine(4, 32), model(3), []string{"image_generation"}, MoveInPart, []string{"image_generation"}, "Does not port here, so it is given up"},
		{"air-gapped", Request{AirGapped: true}, machine(24, 64), model(11), []string{"web_browsing"}, MoveInPart, []string{"web_browsing"}, "air-gapped"},
		{"nothing fits", Request{DataMustStayLocal: true}, machine(0, 2), nil, []string{"knowledge"}, Keep, []string{"instructions", "knowledge"}, "No text model fits"},
		{"online, something does not port", Request{}, machine(4, 32), model(3), []string{"image_generation"}, MoveInPart, []string{"image_generation"}, "stays on ChatGPT"},
		{"no subscription price", Request{SubscriptionPerMonth: f64(0)}, machine(24, 64), model(11), []string{"knowledge"}, Move, []string{}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			aa := buildOne(t, c.req, c.m, c.mod, subject(t, c.features...))
			v := aa.Verdict
			if v.Decision != c.want || !slices.Equal(v.StaysBehind, c.behind) {
				t.Fatalf("verdict %s leaving %v, want %s leaving %v; reasons %+v", v.Decision, v.StaysBehind, c.want, c.behind, v.Reasons)
			}
			if v.Label != c.want.Label() || v.Headline == "" {
				t.Errorf("label %q headline %q", v.Label, v.Headline)
			}
			if c.reason == "" {
				return
			}
			for _, r := range v.Reasons {
				if r.Deciding && strings.Contains(r.Text, c.reason) {
					return
				}
			}
			t.Errorf("no deciding reason says %q: %+v", c.reason, v.Reasons)
		})
	}
}

func TestEconomicsShowsTheSum(t *testing.T) {
	req := Request{HourlyValue: f64(40), SubscriptionPerMonth: f64(20)}
	aa := buildOne(t, req, machine(4, 32), model(3), subject(t, "knowledge", "voice", "image_generation"))
	e := aa.Economics
	// instructions 0.5 + knowledge 0.5 (rehome hosts it) + voice 5
	// (image generation does not port on a 4 GiB GPU and costs nothing);
	// upkeep: knowledge 0.1 + voice 0.5 h/month.
	if e.Hours != 6 || e.OpsHoursPerMonth != 0.6 || e.FirstYearHours != 13.2 || e.FirstYearCost != 528 || e.SubscriptionPerYear != 240 {
		t.Fatalf("economics %+v", e)
	}
	want := "6 h of work + 0.6 h/month upkeep × 12 = 13.2 h in the first year × 40/h = 528, against a subscription of 20/month × 12 = 240"
	if e.Sum != want {
		t.Fatalf("sum %q\nwant %q", e.Sum, want)
	}
}

func TestDefaultsAreRecorded(t *testing.T) {
	rec, err := Build(DefaultCatalog(), Request{}, machine(8, 32), model(6), []Subject{subject(t)})
	if err != nil {
		t.Fatal(err)
	}
	if *rec.Request.HourlyValue != DefaultHourlyValue || *rec.Request.SubscriptionPerMonth != DefaultSubscription {
		t.Fatalf("defaults not recorded: %+v", rec.Request)
	}
}

func TestBuildRejectsBadInput(t *testing.T) {
	for name, req := range map[string]Request{
		"negative VRAM":  {VRAMBytes: i64(-1)},
		"negative hours": {HoursAvailable: f64(-2)},
		"negative price": {SubscriptionPerMonth: f64(-20)},
	} {
		if _, err := Build(DefaultCatalog(), req, machine(8, 32), model(6), []Subject{subject(t)}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := Build(DefaultCatalog(), Request{}, machine(8, 32), model(6), nil); err == nil || !strings.Contains(err.Error(), "nothing to audit") {
		t.Errorf("no subjects: %v", err)
	}
}

func TestAcrossAssistants(t *testing.T) {
	a, b := subject(t, "code_interpreter", "image_generation"), subject(t, "image_generation")
	a.Name, b.Name = "Analyst", "Reader"
	b.AssistantID = "b1"
	rec, err := Build(DefaultCatalog(), Request{}, machine(4, 32), model(3), []Subject{a, b})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, row := range rec.Across {
		ids = append(ids, row.ID)
	}
	if !slices.Equal(ids, []string{Instructions, CodeInterpreter, ImageGeneration}) {
		t.Fatalf("across rows %v", ids)
	}
	images := rec.Across[2]
	if len(images.Users) != 2 || images.Users[0].Name != "Analyst" || images.Users[1].AssistantID != "b1" || images.Users[1].Category != DoesNotPort {
		t.Fatalf("image generation row %+v", images)
	}
	if rec.Summary.MoveInPart+rec.Summary.Keep != 2 || !strings.Contains(rec.Summary.Headline, "subscription stays") {
		t.Fatalf("summary %+v", rec.Summary)
	}
}

func TestNormalizeFeatures(t *testing.T) {
	got, err := NormalizeFeatures([]string{"actions, Code-Interpreter", "image_generation", "dalle", " "})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{CodeInterpreter, ImageGeneration, Actions}) {
		t.Fatalf("got %v", got)
	}
	if _, err := NormalizeFeatures([]string{"telepathy"}); err == nil || !strings.Contains(err.Error(), `unknown feature "telepathy": use one of instructions,`) {
		t.Fatalf("err = %v", err)
	}
}

func TestManualSubject(t *testing.T) {
	s, err := ManualSubject("", []string{"actions"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "Features given by hand" || !slices.Equal(s.Features, []string{Instructions, Actions}) || !s.ActionUnknownURL {
		t.Fatalf("%+v", s)
	}
	s, _ = ManualSubject("Mine", []string{"actions"}, true)
	if s.ActionUnknownURL {
		t.Fatal("actions said to be local still count as outside")
	}
}

func TestBringSaysWhichFiles(t *testing.T) {
	remote := []assistant.RemoteFile{
		{Tool: assistant.Knowledge, Kind: "vector_store", ID: "vs_1"},
		{Tool: assistant.CodeInterpreter, Kind: "file", ID: "file-2"},
	}
	s := Subject{AssistantID: "a", RemoteFiles: remote}
	for _, c := range []struct {
		s    Subject
		id   string
		want string
	}{
		{s, Knowledge, "Bring the files first: they are still on OpenAI's servers (vector store vs_1)"},
		{s, CodeInterpreter, "Bring the files it works on: they are still on OpenAI's servers (file file-2)"},
		{Subject{AssistantID: "a", KnowledgeFiles: 1, RemoteFiles: remote}, Knowledge, "Bring the rest of its files: some are still on OpenAI's servers (vector store vs_1)"},
		{Subject{AssistantID: "a"}, Knowledge, "no knowledge files came with the assistant"},
		{Subject{AssistantID: "a", KnowledgeFiles: 2}, Knowledge, ""},
		{Subject{AssistantID: "a"}, CodeInterpreter, ""},
		{Subject{RemoteFiles: remote}, Knowledge, ""}, // ticked by hand: nothing known of files
	} {
		got := bring(c.s, c.id)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("bring(%+v, %s) = %q, want %q", c.s, c.id, got, c.want)
		}
	}
}

// The checklist pulls a model by its Ollama tag; when the audit sized a
// larger quantization than the tag's 4-bit build, it says so.
func TestTagNote(t *testing.T) {
	if n := tagNote(&Model{Tag: "gemma3:27b", Quant: "Q6_K"}); !strings.Contains(n, "gemma3:27b is Ollama's default 4-bit build, smaller than the Q6_K") {
		t.Errorf("Q6_K: %q", n)
	}
	for _, q := range []string{"Q4_K_M", "MXFP4", ""} {
		if n := tagNote(&Model{Tag: "x:1b", Quant: q}); n != "" {
			t.Errorf("%s: %q", q, n)
		}
	}
}
